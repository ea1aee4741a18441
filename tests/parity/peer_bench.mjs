// Side-by-side benchmark: three-vrm's springBoneManager.update against hairswing's per-frame call,
// on the same files and the same 60 fps head-turn, in one run. Run through `scripts/bench --peer`.
//
//   node peer_bench.mjs --bench PATH/hairswing_peer_bench --out DIR [--rounds N] [--crowd N] FILE...
//
// --crowd N (default 100; 0 = none): also a crowd line, N copies of the first file whose name holds
// "layered" (else the first file) each driven by its own three-vrm manager against N copies each
// driven by the npm package (arc), the head-turn phase-shifted per character; per frame, the time
// to update all N, interleaved rounds as above.
//
// For every file, rounds alternate: one pass of the 12 s head-turn (720 frames) through three-vrm
// (in this process), then one through each hairswing mode (arc, parent, vrm; a child process per
// mode that stays alive across rounds). The first round warms up (JIT, caches) and is not
// counted. Timed per frame on both sides: three-vrm = manager.update(1/60) after the caller's
// scene.updateMatrixWorld (not timed); hairswing = DrivenFrameDriver::Advance (world transforms
// of the driver nodes in, spring joint rotations out: two 1/120 s steps per frame) after the
// caller's own world transforms were computed (not timed). Arc and parent run whole-link contact
// checks on the stress rigs (as the targets of issue 10 ask) and the file's own choice elsewhere.
// Beside them, vrm mode stepped as three-vrm steps (one step of the frame's 1/60 s instead of two
// fixed 1/120 s steps, `--stepping frame`; the npm package's stepping 'frame'): the same number
// of steps as three-vrm's update, a like-for-like line.
// Two more columns, when the WebAssembly module is built (scripts/build-wasm): the npm package
// hairswing-three in this process, in arc mode and in vrm mode stepped once per frame, its
// update(1/60) timed like three-vrm's (it reads the driver objects' world matrices and writes the
// bones' quaternions itself; segment checks as the file says).
// Writes DIR/peer.json and DIR/peer.md and prints the table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execFileSync } from 'node:child_process';
import readline from 'node:readline';
import { VRMUtils, loadForSprings } from './load_vrm.mjs';

const args = process.argv.slice(2);
let bench = '';
let outDir = 'out/peer';
let rounds = 6;
let crowd = 100;
const files = [];
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--bench') bench = args[++i];
  else if (args[i] === '--out') outDir = args[++i];
  else if (args[i] === '--rounds') rounds = Number(args[++i]);
  else if (args[i] === '--crowd') crowd = Number(args[++i]);
  else if (args[i] === '--help' || args[i] === '-h') {
    console.log('usage: node peer_bench.mjs --bench hairswing_peer_bench --out DIR [--rounds N] [--crowd N] FILE...');
    process.exit(0);
  } else files.push(args[i]);
}
if (!bench || files.length === 0 || !(rounds >= 2)) {
  console.error('peer_bench: need --bench PATH, at least one FILE and --rounds >= 2');
  process.exit(2);
}
fs.mkdirSync(outDir, { recursive: true });
const FRAMES = 720; // the 12 s head-turn at 60 fps
let HairswingSpringBones = null;
try {
  ({ HairswingSpringBones } = await import('../../web/hairswing-three/src/index.js'));
} catch (e) {
  process.stderr.write(`peer: the npm package is not measured (${String(e.message).slice(0, 120)}; run scripts/build-wasm)\n`);
}
// The native columns: the fixed-step modes and vrm stepped once per frame (three-vrm's way).
const MODES = ['arc', 'parent', 'vrm', 'vrm-frame'];

function stats(ns) {
  const s = [...ns].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50_us: q(0.5) / 1000, p95_us: q(0.95) / 1000, frames: s.length };
}

// A hairswing_peer_bench serve process: send "run N", read one JSON line back.
function startServe(file, mode, checks) {
  const perFrame = mode === 'vrm-frame';
  const argv = ['serve', file, perFrame ? 'vrm' : mode, '--segment-checks', checks, '--input', 'driven'];
  if (perFrame) argv.push('--stepping', 'frame');
  const child = spawn(bench, argv, {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout });
  const queue = [];
  const waiting = [];
  lines.on('line', (l) => (waiting.length ? waiting.shift()(l) : queue.push(l)));
  const next = () =>
    new Promise((resolve, reject) => {
      if (queue.length) return resolve(queue.shift());
      waiting.push(resolve);
      child.once('exit', (code) => reject(new Error(`${bench} serve ${file} ${mode} exited with ${code}`)));
    });
  return {
    pid: child.pid,
    ready: next().then((l) => JSON.parse(l)),
    async run(n) {
      child.stdin.write(`run ${n}\n`);
      return JSON.parse(await next());
    },
    stop() {
      child.stdin.end();
    },
  };
}

// How busy the machine was with other work while a file ran: the processor time of the whole
// machine (Linux's /proc/stat) less this benchmark's own (node's, and its native processes'), and
// the time the host gave to other virtual machines ("steal"). Either slows the frames it lands in,
// on whichever side is running, and moves the ratios. Times in clock ticks; null where /proc is
// not readable.
function cpuTimes() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
  } catch {
    return null;
  }
}
// A process's user + system time in clock ticks (0 when unreadable).
function cpuTicksOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // from field 3 (state) on
    return Number(fields[11]) + Number(fields[12]);  // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}
function machineLoad(a, b, ownTicks) {
  if (!a || !b) return null;
  const busy = b.busy - a.busy, idle = b.idle - a.idle, steal = b.steal - a.steal;
  const total = busy + idle + steal;
  if (!(total > 0)) return null;
  const cores = os.cpus().length;
  return { cores, other_cores: (Math.max(0, busy - ownTicks) / total) * cores, steal_pct: (100 * steal) / total };
}
// Above this much other work (cores) or steal (%) a file's ratios are flagged as unreliable.
const OTHER_LIMIT = 0.25, STEAL_LIMIT = 5;
const TICKS_PER_US = 100 / 1e6;  // USER_HZ, the unit of /proc/stat on Linux

async function benchFile(file) {
  const load0 = cpuTimes(), node0 = process.cpuUsage();
  const label = path.basename(file);
  const motionPath = path.join(outDir, `${label}.motion.json`);
  execFileSync(bench, ['motion', file, String(FRAMES), motionPath]);
  const motion = JSON.parse(fs.readFileSync(motionPath, 'utf8'));
  const { vrm, manager, root, nodes } = await loadForSprings(fs.readFileSync(file));
  if (motion.vrm0) VRMUtils.rotateVRM0(vrm);
  const head = nodes[motion.head];
  const hips = motion.hips >= 0 ? nodes[motion.hips] : null;
  root.updateMatrixWorld(true);
  manager.setInitState();
  const flip = motion.vrm0 ? -1 : 1;
  let frame = 0;
  const threeRound = () => {
    const ns = new Array(FRAMES);
    for (let i = 0; i < FRAMES; ++i, ++frame) {
      const f = motion.frames[frame % FRAMES];
      head.quaternion.set(flip * f.head[0], f.head[1], flip * f.head[2], f.head[3]);
      if (hips) hips.position.set(flip * f.hips[0], f.hips[1], flip * f.hips[2]);
      root.updateMatrixWorld(true); // the caller's animation, not timed
      const t0 = process.hrtime.bigint();
      manager.update(motion.dt);
      ns[i] = Number(process.hrtime.bigint() - t0);
    }
    return ns;
  };
  // The npm package on its own copy of the scene, under the same motion: arc (fixed steps), and
  // vrm mode stepped as three-vrm steps (stepping 'frame'), each on a copy of its own.
  const packageRound = async (options) => {
    const copy = await loadForSprings(fs.readFileSync(file));
    if (motion.vrm0) VRMUtils.rotateVRM0(copy.vrm);
    copy.root.updateMatrixWorld(true);
    const springs = await HairswingSpringBones.fromVRM(copy.vrm || copy.gltf, copy.data, { gltf: copy.gltf, replaceManager: false, name: label, ...options });
    const h2 = copy.nodes[motion.head];
    const p2 = motion.hips >= 0 ? copy.nodes[motion.hips] : null;
    let f2 = 0;
    return () => {
      const ns = new Array(FRAMES);
      for (let i = 0; i < FRAMES; ++i, ++f2) {
        const f = motion.frames[f2 % FRAMES];
        h2.quaternion.set(flip * f.head[0], f.head[1], flip * f.head[2], f.head[3]);
        if (p2) p2.position.set(flip * f.hips[0], f.hips[1], flip * f.hips[2]);
        copy.root.updateMatrixWorld(true);
        const t0 = process.hrtime.bigint();
        springs.update(motion.dt);
        ns[i] = Number(process.hrtime.bigint() - t0);
      }
      return ns;
    };
  };
  const wasmRound = HairswingSpringBones ? await packageRound({ mode: 'arc' }) : null;
  const wasmVrmRound = HairswingSpringBones ? await packageRound({ mode: 'vrm', stepping: 'frame' }) : null;
  const checks = label.startsWith('stress-') ? 'on' : 'file';
  const servers = Object.fromEntries(MODES.map((m) => [m, startServe(file, m, m.startsWith('vrm') ? 'file' : checks)]));
  const info = await servers.arc.ready;
  for (const m of MODES.slice(1)) await servers[m].ready;
  const times = { 'three-vrm': [], wasm: [], 'wasm-vrm-frame': [], ...Object.fromEntries(MODES.map((m) => [m, []])) };
  for (let r = 0; r < rounds; ++r) {
    const t = threeRound();
    if (r > 0) times['three-vrm'].push(...t);
    if (wasmRound) {
      const w = wasmRound();
      if (r > 0) times.wasm.push(...w);
      const v = wasmVrmRound();
      if (r > 0) times['wasm-vrm-frame'].push(...v);
    }
    for (const m of MODES) {
      const res = await servers[m].run(FRAMES);
      if (r > 0) times[m].push(...res.ns);
    }
  }
  // The native processes' processor time, for machineLoad (they end with this file).
  const childTicks = MODES.reduce((sum, m) => sum + cpuTicksOf(servers[m].pid), 0);
  for (const m of MODES) servers[m].stop();
  const row = { file: label, joints: info.joints, chains: info.chains, nodes: info.nodes,
    three_vrm_joints: manager.joints.size, segment_checks: checks };
  const ref = stats(times['three-vrm']);
  row['three-vrm'] = ref;
  for (const m of MODES) {
    const s = stats(times[m]);
    s.ratio = ref.p50_us / s.p50_us;
    s.ns_per_joint_step = (s.p50_us * 1000) / ((m === 'vrm-frame' ? 1 : 2) * info.joints);
    row[m] = s;
  }
  for (const k of ['wasm', 'wasm-vrm-frame']) {
    if (!times[k].length) continue;
    row[k] = stats(times[k]);
    row[k].ratio = ref.p50_us / row[k].p50_us;
  }
  const node = process.cpuUsage(node0);
  row.machine = machineLoad(load0, cpuTimes(), (node.user + node.system) * TICKS_PER_US + childTicks);
  return row;
}

// N characters of one file: N three-vrm managers against N npm package instances (arc), each
// character at its own phase of the head-turn. Per frame: every character's animation and world
// matrices (not timed), then all N updates (timed together).
async function benchCrowd(file, n) {
  const label = path.basename(file);
  const motionPath = path.join(outDir, `${label}.motion.json`);
  execFileSync(bench, ['motion', file, String(FRAMES), motionPath]);
  const motion = JSON.parse(fs.readFileSync(motionPath, 'utf8'));
  const bytes = fs.readFileSync(file);
  const flip = motion.vrm0 ? -1 : 1;
  const make = async (withPackage) => {
    const c = await loadForSprings(bytes);
    if (motion.vrm0) VRMUtils.rotateVRM0(c.vrm);
    c.root.updateMatrixWorld(true);
    c.manager.setInitState();
    if (withPackage) c.springs = await HairswingSpringBones.fromVRM(c.vrm || c.gltf, c.data, { gltf: c.gltf, replaceManager: false, mode: 'arc', name: label });
    c.head = c.nodes[motion.head];
    c.hips = motion.hips >= 0 ? c.nodes[motion.hips] : null;
    return c;
  };
  const three = [], ours = [];
  for (let i = 0; i < n; ++i) three.push(await make(false));
  for (let i = 0; i < n; ++i) ours.push(await make(true));
  const CROWD_FRAMES = 240;
  let frame = 0;
  const round = (cast, update) => {
    const ns = new Array(CROWD_FRAMES);
    for (let i = 0; i < CROWD_FRAMES; ++i, ++frame) {
      cast.forEach((c, k) => {
        const f = motion.frames[(frame + 7 * k) % FRAMES];
        c.head.quaternion.set(flip * f.head[0], f.head[1], flip * f.head[2], f.head[3]);
        if (c.hips) c.hips.position.set(flip * f.hips[0], f.hips[1], flip * f.hips[2]);
        c.root.updateMatrixWorld(true);
      });
      const t0 = process.hrtime.bigint();
      for (const c of cast) update(c);
      ns[i] = Number(process.hrtime.bigint() - t0);
    }
    return ns;
  };
  const t3 = [], tw = [];
  for (let r = 0; r < rounds; ++r) {
    const a = round(three, (c) => c.manager.update(motion.dt));
    const b = round(ours, (c) => c.springs.update(motion.dt));
    if (r > 0) { t3.push(...a); tw.push(...b); }
  }
  for (const c of ours) c.springs.dispose();
  const ref = stats(t3), w = stats(tw);
  return { file: label, characters: n, 'three-vrm': ref, wasm: { ...w, ratio: ref.p50_us / w.p50_us } };
}

const rows = [];
for (const f of files) {
  process.stderr.write(`peer: ${f}\n`);
  rows.push(await benchFile(f));
}
let crowdRow = null;
if (crowd > 0 && HairswingSpringBones) {
  const f = files.find((x) => path.basename(x).includes('layered')) || files[0];
  process.stderr.write(`peer: ${crowd} x ${f}\n`);
  crowdRow = await benchCrowd(f, crowd);
}
const fmt = (x) => x.toFixed(1);
let md = `Per 60 fps frame of the 12 s head-turn, median (p95) in microseconds; ${rounds - 1} interleaved rounds of ${FRAMES} frames after one warm-up round.\n`;
md += 'three-vrm: springBoneManager.update(1/60). hairswing (native): DrivenFrameDriver::Advance, two 1/120 s steps (world transforms of the driver nodes in, joint rotations out). vrm 1/frame: vrm mode stepped as three-vrm steps, one step of 1/60 s per frame (StepDrivenVariable; the npm package\'s stepping \'frame\'). wasm arc: the npm package hairswing-three in node, update(1/60) (reads the driver objects, writes the bones; segment checks as the file says); wasm vrm 1/frame: the same package in vrm mode with stepping \'frame\'. ratio = three-vrm median / hairswing median.\n\n';
md += '| file | joints | three-vrm | arc | ratio | parent | ratio | vrm | ratio | vrm 1/frame | ratio | ns/joint-step arc / parent / vrm / vrm 1/frame | wasm arc | ratio | wasm vrm 1/frame | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
for (const r of rows) {
  const c = (s) => `${fmt(s.p50_us)} (${fmt(s.p95_us)})`;
  // A column and its ratio ("n/a" and nothing when the package is not built).
  const withRatio = (x) => (x ? `${c(x)} | ${x.ratio.toFixed(1)}x` : 'n/a | ');
  md += `| ${r.file}${r.segment_checks === 'on' ? ' (whole-link checks)' : ''} | ${r.joints} | ${c(r['three-vrm'])} | ${MODES.map((m) => withRatio(r[m])).join(' | ')} | ${MODES.map((m) => r[m].ns_per_joint_step.toFixed(0)).join(' / ')} | ${withRatio(r.wasm)} | ${withRatio(r['wasm-vrm-frame'])} |\n`;
}
const loads = rows.filter((r) => r.machine);
if (loads.length) {
  const m = (r) => `${r.file} ${r.machine.other_cores.toFixed(2)}${r.machine.steal_pct >= 0.05 ? ` (steal ${r.machine.steal_pct.toFixed(1)} %)` : ''}`;
  md += `\nOther work on the machine while each file ran, in cores of ${loads[0].machine.cores} (all processor time less this benchmark's own): ${loads.map(m).join(', ')}.\n`;
  const busy = loads.filter((r) => r.machine.other_cores > OTHER_LIMIT || r.machine.steal_pct > STEAL_LIMIT);
  if (busy.length) {
    md += `**Warning:** other work took more than ${OTHER_LIMIT} of a core (or the host stole over ${STEAL_LIMIT} %) during ${busy.map((r) => r.file).join(', ')}: those ratios are not reliable; run again on a quiet machine.\n`;
  }
}
if (crowdRow) {
  const c = crowdRow;
  md += `\nA crowd: ${c.characters} x ${c.file}, each character at its own phase of the head-turn; per frame all ${c.characters} updates, median (p95) in milliseconds over ${rounds - 1} interleaved rounds of 240 frames: three-vrm ${(c['three-vrm'].p50_us / 1000).toFixed(2)} (${(c['three-vrm'].p95_us / 1000).toFixed(2)}), the npm package (arc) ${(c.wasm.p50_us / 1000).toFixed(2)} (${(c.wasm.p95_us / 1000).toFixed(2)}): ${c.wasm.ratio.toFixed(1)}x.\n`;
}
fs.writeFileSync(path.join(outDir, 'peer.json'), JSON.stringify({ rounds: rounds - 1, frames: FRAMES, rows, crowd: crowdRow }, null, 2));
fs.writeFileSync(path.join(outDir, 'peer.md'), md);
process.stdout.write(md);
