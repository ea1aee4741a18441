#!/usr/bin/env bash
# Command-line mistakes: each is exactly one `error:` line on stderr, exit 2, and a typo of a
# command or option is answered with the nearest real one.
#   cli_args.sh HAIRSWING_CLI
set -uo pipefail
cli=$1
failures=0
expect() {  # WANT_REGEX ARGS...
  local want=$1
  shift
  local err rc
  err=$("$cli" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc == 2 && $(printf '%s\n' "$err" | wc -l) == 1 && $err == error:* && $err =~ $want ]]; then
    echo "ok   hairswing $*: $err"
  else
    echo "FAIL hairswing $*: exit $rc: $err"
    failures=$((failures + 1))
  fi
}
expect "unknown command 'fitt'; did you mean 'fit'" fitt x
expect "unknown command 'mesure'; did you mean 'measure'" mesure x.vrm
expect "unknown command 'zzzzzz'" zzzzzz
expect "unknown option '--prot' for 'view'; did you mean '--port'" view --prot 5
expect "--port: Value 70000 not in range" view --port 70000
expect "unknown option '--fpss' for 'hash'; did you mean '--fps'" hash x.vrm --fpss 60
expect "AVATAR is required" measure
expect "--fps" hash x.vrm --fps abc
expect "subcommand is required|hairswing --help"
if ((failures)); then echo "cli arguments: $failures case(s) failed"; exit 1; fi
echo "cli arguments: every mistake is one error line"
