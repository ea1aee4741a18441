# Sourced by the command-line test scripts. expect_cli_error SUBCOMMAND TEXT ARGS... runs
# `$cli SUBCOMMAND ARGS...` and requires exit code 2 and one line on stderr (CLI11's "Run with
# --help" aside) that contains TEXT. Needs $cli and a fail function.
expect_cli_error() {
  local sub=$1 want=$2
  shift 2
  set +e
  "$cli" "$sub" "$@" > err.out 2> err.txt
  local rc=$?
  set -e
  [[ $rc == 2 ]] || fail "$sub $*: exit $rc ($(cat err.txt))"
  [[ $(grep -vc '^Run with --help' err.txt) == 1 ]] || fail "$sub $*: not one line: $(cat err.txt)"
  grep -q -- "$want" err.txt || fail "$sub $*: expected '$want' in: $(cat err.txt)"
}
