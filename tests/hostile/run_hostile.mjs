#!/usr/bin/env node
// Runs the hostile-input corpus (cases.mjs) through every command that reads that kind of file
// and checks what a server operator needs: no crash, hang or sanitizer report; exit 0 (with a
// result that reloads) or exit 2 with exactly one line naming the file; nothing written on
// failure; inputs unchanged (sha256); no terminal control bytes printed; memory bounded.
//
//   node tests/hostile/run_hostile.mjs --cli build/cli/hairswing --work build/hostile [--asan]
//        [--only REGEX] [--jobs N] [--timeout S] [--memory-mb MB]
//
// Memory: the normal build runs under `ulimit -v` (address space); the sanitizer build cannot
// (ASan reserves terabytes of address space), so it uses ASan's own hard_rss_limit_mb instead.
// Peak resident memory of every run comes from /usr/bin/time. Writes results.json and
// summary.md into the work folder; exit 1 when any run failed.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildCases } from "./cases.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const cli = path.resolve(opt("--cli", "build/cli/hairswing"));
const work = path.resolve(opt("--work", "build/hostile"));
const asan = args.includes("--asan");
const only = new RegExp(opt("--only", "."));
const jobs = Number(opt("--jobs", os.cpus().length));
const timeoutS = Number(opt("--timeout", asan ? 300 : 120));
const memoryMb = Number(opt("--memory-mb", 2048));
if (!fs.existsSync(cli)) { console.error(`run_hostile: no CLI at ${cli}`); process.exit(2); }
if (!fs.existsSync("/usr/bin/time")) { console.error("run_hostile: /usr/bin/time is missing (apt-get install time)"); process.exit(2); }

const sha = (file) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

// --- bases: the demo avatar and the same avatar after a fit (for the undo records) -----------
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, "base"), { recursive: true });
const base = (f) => path.join(work, "base", f);
for (const cmd of [["make-demo-avatar", "-o", base("demo.vrm")],
                   ["fit", base("demo.vrm"), "--hair", "material:Hair", "--colliders", "-o", base("fitted.vrm")]]) {
  const r = spawnSync(cli, cmd, { encoding: "utf8" });
  if (r.status !== 0) { console.error(`run_hostile: ${cmd.join(" ")} failed:\n${r.stderr}`); process.exit(2); }
}
const demoBytes = fs.readFileSync(base("demo.vrm"));
const cases = buildCases(demoBytes, fs.readFileSync(base("fitted.vrm")));
const goodClip = cases.find((c) => c.family === "clips" && c.name === "valid").files["c.glb"];
// A file given as null in cases.mjs is the valid clip (for hostile avatars that play one).
for (const c of cases) for (const [f, d] of Object.entries(c.files)) if (d === null) c.files[f] = goodClip;

// Writes: outputs that must not replace the input, go through symlinks or land on devices.
const writeCases = [
  ["convert_onto_input", ["convert", "a.vrm", "-o", "a.vrm"], 2],
  ["render_onto_input", ["render", "a.vrm", "-o", "a.vrm"], 2],
  ["measure_json_onto_input", ["measure", "a.vrm", "--seconds", "2", "--fps", "60", "--json", "a.vrm"], 2],
  ["measure_report_onto_input", ["measure", "a.vrm", "--seconds", "2", "--fps", "60", "--report", "a.vrm"], 2],
  ["fit_onto_input", ["fit", "a.vrm", "--hair", "material:Hair", "-o", "a.vrm"], 2],
  ["fit_report_onto_input", ["fit", "a.vrm", "--hair", "material:Hair", "-o", "f.vrm", "--report", "a.vrm"], 2],
  ["validate_json_onto_input", ["validate-clips", "a.vrm", "--clips", "c.glb", "--json", "a.vrm"], 2],
  ["check_json_onto_input", ["check", "a.vrm", "--json", "a.vrm"], 2],
  ["retarget_onto_clip", ["retarget", "a.vrm", "c.glb", "-o", "c.glb"], 2],
  ["convert_missing_folder", ["convert", "a.vrm", "-o", "no/such/folder/o.vrm"], 2],
  ["convert_dev_full", ["convert", "a.vrm", "-o", "/dev/full", "--force"], 2],
  ["measure_json_dev_full", ["measure", "a.vrm", "--seconds", "2", "--fps", "60", "--json", "/dev/full", "--force"], 2],
  ["render_dev_full", ["render", "a.vrm", "-o", "/dev/full", "--force"], 2],
  ["convert_onto_folder", ["convert", "a.vrm", "-o", "folder.vrm", "--force"], 2, { folder: "folder.vrm" }],
  ["convert_onto_symlink", ["convert", "a.vrm", "-o", "o.vrm"], 2, { symlink: ["o.vrm", "victim.txt"] }],
  ["convert_force_replaces_symlink_not_target", ["convert", "a.vrm", "-o", "o.vrm", "--force"], 0, { symlink: ["o.vrm", "victim.txt"] }],
];
for (const [name, cmd, rc, setup] of writeCases)
  cases.push({ family: "writes", kind: "write", name, files: { "a.vrm": demoBytes, "c.glb": goodClip, "victim.txt": "keep me\n" },
               commands: [{ args: cmd, rc }], setup });

// --- commands per kind -----------------------------------------------------------------------
// Multi-megabyte size bombs take seconds per command in the normal build and ten times that
// under ASan; in the sanitizer build (ctest keeps CI well under 30 minutes) they go through the
// first command of their kind (the loader) only. The normal build runs them through everything.
const heavy = new Set(["constraint_chain_70k_with_clip", "constraint_chain_deep_30k_with_clip", "deep_node_chain", "deep_node_chain_spring", "wide_nodes", "constraint_chain",
                       "many_springs", "many_colliders", "long_string", "million_keys",
                       "bvh_deep_joints_50k", "bvh_wide_joints_166k"]);
function commandsFor(c) {
  const all = allCommandsFor(c);
  return asan && heavy.has(c.name) ? all.slice(0, 1) : all;
}
function allCommandsFor(c) {
  if (c.commands) return c.commands;
  const A = "a.vrm";
  switch (c.kind) {
    case "avatar": return [
      { args: ["inspect", A] }, { args: ["inspect", "--json", A] },
      { args: ["convert", A, "-o", "out.vrm"], reload: "out.vrm" },
      { args: ["render", A, "-o", "out.png", "--head-turn", "1", "--size", "64"] },
      { args: ["measure", A, "--seconds", "2", "--fps", "60", "--solver", "arc,vrm", "--json", "m.json"] },
      { args: ["fit", A, "--hair", "material:Hair", "--colliders", "-o", "fit.vrm", "--report", "fit.json"], reload: "fit.vrm" },
      { args: ["check", A] },
      { args: ["validate-clips", A, "--clips", "good.glb"], extra: { "good.glb": goodClip } },
    ];
    case "clip": {
      const C = Object.keys(c.files).find((f) => f !== A);
      return [
        { args: ["inspect", C] },
        { args: ["retarget", A, C, "-o", "out.glb"], reload: "out.glb" },
        { args: ["validate-clips", A, "--clips", C, "--json", "v.json"] },
        { args: ["measure", A, "--motion", C, "--seconds", "2", "--fps", "60", "--solver", "arc", "--json", "m.json"] },
      ];
    }
    case "wear": return [
      { args: ["inspect", "w.vrm"] },
      { args: ["fit", A, "--hair", "material:Hair", "--wear", "w.vrm", "-o", "fit.vrm"], reload: "fit.vrm" },
    ];
    case "undo": return [
      { args: ["inspect", A] },
      { args: ["fit", A, "--undo", "-o", "undone.vrm"], reload: "undone.vrm" },
    ];
  }
  throw new Error(`unknown kind ${c.kind}`);
}
// Commands whose exit code 1 means "a check failed" (a finding about the file, not a fault).
const mayFail = new Set(["measure", "validate-clips", "check"]);

// --- running one command ---------------------------------------------------------------------
// `limitS`: the timeout of this run (the size bombs get twice the default under ASan, whose
// allocator makes their 20 MB of JSON several times slower to parse).
function runOnce(dir, argv, limitS = timeoutS) {
  return new Promise((resolve) => {
    const timeFile = path.join(dir, "..", `${path.basename(dir)}.time`);
    const env = { ...process.env };
    let wrapped;
    if (asan) {
      env.ASAN_OPTIONS = `hard_rss_limit_mb=${memoryMb}:detect_leaks=1:abort_on_error=1`;
      env.UBSAN_OPTIONS = "print_stacktrace=1:halt_on_error=1";
      wrapped = [cli, ...argv];
    } else {
      wrapped = ["bash", "-c", `ulimit -v ${memoryMb * 1024}; exec "$@"`, "hostile", cli, ...argv];
    }
    const t0 = Date.now();
    // Its own process group, so a timeout kills the command and not only /usr/bin/time.
    const p = spawn("/usr/bin/time", ["-f", "%M", "-o", timeFile, ...wrapped], { cwd: dir, env, detached: true });
    let out = Buffer.alloc(0), err = Buffer.alloc(0);
    p.stdout.on("data", (d) => { if (out.length < 1 << 20) out = Buffer.concat([out, d]); });
    p.stderr.on("data", (d) => { if (err.length < 1 << 20) err = Buffer.concat([err, d]); });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-p.pid, "SIGKILL"); } catch { p.kill("SIGKILL"); }
    }, limitS * 1000);
    p.on("close", (code, signal) => {
      clearTimeout(timer);
      let rssKb = null;
      try {
        const t = fs.readFileSync(timeFile, "utf8");
        const m = t.match(/(\d+)\s*$/);
        if (m) rssKb = Number(m[1]);
        // /usr/bin/time reports a child killed by a signal on its first line.
        const sig = t.match(/terminated by signal (\d+)/);
        if (sig && !signal) signal = `signal ${sig[1]}`;
      } catch { /* killed before time wrote it */ }
      resolve({ code, signal, timedOut, out: out.toString("latin1"), err: err.toString("latin1"),
                seconds: (Date.now() - t0) / 1000, rssKb });
    });
  });
}

function listFiles(dir) {
  return fs.readdirSync(dir).sort();
}

// One case through all its commands; every command in a fresh folder with fresh inputs.
async function runCase(c) {
  const results = [];
  const cmds = commandsFor(c);
  for (let k = 0; k < cmds.length; k++) {
    const cmd = cmds[k];
    const dir = path.join(work, "cases", c.family, c.name, `run${k}`);
    fs.mkdirSync(dir, { recursive: true });
    const inputs = { ...c.files, ...(cmd.extra || {}) };
    for (const [f, data] of Object.entries(inputs)) fs.writeFileSync(path.join(dir, f), data);
    const setup = c.setup || {};
    if (setup.fifo) spawnSync("mkfifo", [path.join(dir, setup.fifo)]);
    if (setup.symlink) fs.symlinkSync(setup.symlink[1], path.join(dir, setup.symlink[0]));
    if (setup.folder) fs.mkdirSync(path.join(dir, setup.folder));
    const before = listFiles(dir);
    const hashes = Object.fromEntries(Object.keys(inputs).map((f) => [f, sha(path.join(dir, f))]));
    const limitS = asan && heavy.has(c.name) ? 2 * timeoutS : timeoutS;
    const r = await runOnce(dir, cmd.args, limitS);
    const problems = [];
    const verb = cmd.args[0];
    // The unmodified bases ("valid", "vrma_valid", "bvh_valid") must pass every command: the
    // corpus proves its mutations are what gets refused, not the base.
    // A case marked mustReject (a field of the wrong JSON type) must be refused by the loader
    // with exit 2 by every command, not loaded with the field dropped.
    const allowed = cmd.rc !== undefined ? [cmd.rc] : /(^|_)valid$/.test(c.name) ? [0]
                  : c.mustReject ? [verb === "check" ? 1 : 2]  // check reports a bad file as a failed check
                  : mayFail.has(verb) ? [0, 1, 2] : [0, 2];
    const sanitizer = /AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer/.test(r.err);
    if (r.timedOut) problems.push(`hang: killed after ${limitS} s`);
    else if (r.signal) problems.push(`crash: ${r.signal}`);
    else if (sanitizer) problems.push("sanitizer report");
    else if (!allowed.includes(r.code)) problems.push(`exit ${r.code} (expected ${allowed.join(" or ")})`);
    const errLines = r.err.split("\n").filter((l) => l.trim() !== "");
    if (!r.timedOut && !r.signal && r.code === 2) {
      if (errLines.length !== 1) problems.push(`exit 2 with ${errLines.length} stderr lines, not one`);
      else if (!errLines[0].startsWith("error: ")) problems.push("exit 2 without an 'error: ' line");
      else if (!Object.keys(inputs).some((f) => errLines[0].includes(f)) && !cmd.args.some((a) => a.length > 1 && errLines[0].includes(a)))
        problems.push("error line names no input file or argument");
    }
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x08\x0b-\x1f\x7f]/.test(r.out + r.err.replace(/\r/g, ""))) problems.push("control bytes printed");
    for (const [f, h] of Object.entries(hashes)) {
      const p = path.join(dir, f);
      if (!fs.existsSync(p) || sha(p) !== h) problems.push(`input ${f} changed`);
    }
    if (setup.symlink && setup.symlink[1] === "victim.txt" && fs.readFileSync(path.join(dir, "victim.txt"), "utf8") !== "keep me\n") problems.push("wrote through a symlink");
    const after = listFiles(dir);
    const created = after.filter((f) => !before.includes(f));
    // Disclosure: nothing outside the asset's folder (the paths family points at /etc/passwd)
    // may end up in an output.
    for (const f of created) {
      const p = path.join(dir, f);
      if (fs.statSync(p).isFile() && fs.readFileSync(p).includes("root:x:0:0")) problems.push(`${f} contains /etc/passwd`);
    }
    // Exit 1 is a finding about the file (a failed check) with its report written; exit 2 and
    // crashes must leave nothing.
    if (r.code !== 0 && r.code !== 1 && created.length) problems.push(`wrote ${created.join(", ")} on failure`);
    if (!problems.length && r.code === 0 && cmd.reload && fs.existsSync(path.join(dir, cmd.reload))) {
      const again = await runOnce(dir, ["inspect", cmd.reload]);
      if (again.code !== 0) problems.push(`its output ${cmd.reload} does not reload: ${again.err.trim().split("\n")[0]}`);
    }
    results.push({ family: c.family, case: c.name, command: cmd.args.join(" "), exit: r.code, signal: r.signal,
                   seconds: r.seconds, peak_rss_mb: r.rssKb === null ? null : r.rssKb / 1024,
                   stderr: errLines.slice(0, 3).join(" | ").slice(0, 300), problems });
    if (!problems.length) fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

// --- pool ------------------------------------------------------------------------------------
const selected = cases.filter((c) => only.test(`${c.family}/${c.name}`));
const all = [];
let next = 0, done = 0;
const t0 = Date.now();
async function worker() {
  while (next < selected.length) {
    const c = selected[next++];
    const res = await runCase(c);
    all.push(...res);
    done++;
    const bad = res.filter((r) => r.problems.length);
    for (const r of bad) console.log(`FAIL ${r.family}/${r.case}: ${r.command}: ${r.problems.join("; ")}${r.stderr ? `  [${r.stderr}]` : ""}`);
    if (process.stdout.isTTY) process.stdout.write(`\r${done}/${selected.length} cases`);
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
if (process.stdout.isTTY) process.stdout.write("\n");

// --- report ----------------------------------------------------------------------------------
const families = [...new Set(selected.map((c) => c.family))];
const lines = ["| family | cases | runs | handled | failed runs | worst accepted peak RSS (MB) | worst run peak RSS (MB) |",
               "|---|---:|---:|---:|---:|---:|---:|"];
let failedRuns = 0;
for (const f of families) {
  const rs = all.filter((r) => r.family === f);
  const casesIn = selected.filter((c) => c.family === f);
  const badCases = new Set(rs.filter((r) => r.problems.length).map((r) => r.case));
  const failed = rs.filter((r) => r.problems.length).length;
  failedRuns += failed;
  const accepted = rs.filter((r) => r.exit === 0 && r.peak_rss_mb !== null).map((r) => r.peak_rss_mb);
  const any = rs.filter((r) => r.peak_rss_mb !== null).map((r) => r.peak_rss_mb);
  lines.push(`| ${f} | ${casesIn.length} | ${rs.length} | ${casesIn.length - badCases.size} | ${failed} | ` +
             `${accepted.length ? Math.max(...accepted).toFixed(0) : "-"} | ${any.length ? Math.max(...any).toFixed(0) : "-"} |`);
}
const worst = all.filter((r) => r.exit === 0 && r.peak_rss_mb !== null).sort((a, b) => b.peak_rss_mb - a.peak_rss_mb)[0];
const summary = [`# Hostile-input corpus (${asan ? "ASan/UBSan build" : "normal build"}, memory limit ${memoryMb} MB, timeout ${timeoutS} s)`, "",
                 `${selected.length} cases, ${all.length} command runs, ${failedRuns} failed, ${((Date.now() - t0) / 1000).toFixed(0)} s.`, "",
                 ...lines, "",
                 worst ? `Worst accepted input by peak memory: ${worst.family}/${worst.case} (${worst.command}): ${worst.peak_rss_mb.toFixed(0)} MB.` : ""].join("\n");
fs.writeFileSync(path.join(work, "results.json"), JSON.stringify({ asan, memory_mb: memoryMb, runs: all }, null, 1));
fs.writeFileSync(path.join(work, "summary.md"), summary + "\n");
console.log(summary);
process.exit(failedRuns ? 1 : 0);
