#!/bin/sh
# 79-classifier-review.sh: what a hostile review of the classifier found,
# through the real binary in a real workdir, each failing before its fix:
# .. after a symlink folded as text (a write to /etc/cron.d looking like
# one in the workdir), a link to rm under another name, a script read
# from a fifo its writer fills later, hook options whose command ran
# unread, tar's mode letters after -C, psql's \g |CMD after SQL, and the
# action the default policy then takes. Nothing is executed: a canary
# file must survive.
. tests/e2e/lib.sh
need jq
d=$(mktemp -d /tmp/airlock-clsreview.XXXXXX)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/home" "$d/wd"
export HOME="$d/home"
: >"$d/wd/canary"
has() { case ",$1," in *",$2,"*) return 0 ;; esac; return 1; }

# .. after a symlink leaves the link's target, as the kernel walks it
ln -s /etc "$d/wd/etc-link"
r=$(call_field '{"tool":"write_file","input":{"path":"etc-link/../etc/cron.d/x","content":"x"}}' \
	'.rules | join(",")')
check "write through link/..: persistence" has "$r" fs.write.persistence
expect_eq "read through link/..: high" \
	"$(call_field '{"tool":"read_file","input":{"path":"etc-link/../etc/shadow"}}' .tier)" high
expect_eq "cat through link/..: high" "$(shell_field 'cat etc-link/../etc/shadow' .tier)" high
expect_eq "another process's root: high" \
	"$(call_field '{"tool":"read_file","input":{"path":"/proc/1/root/etc/shadow"}}' .tier)" high

# a link to rm left by an earlier call is rm; so is a relative path to it
ln -s /bin/rm "$d/wd/ls"
expect_eq "./ls linked to rm: critical" "$(shell_field './ls -rf ~' .tier)" critical
expect_eq "./ls linked to rm: denied" "$(shell_field './ls -rf ~' .action)" deny

# a script read before its writer appears in the text (fifo, background)
expect_eq "fifo filled later: critical" \
	"$(shell_field "mkfifo p; sh p & echo 'rm -rf ~' > p" .tier)" critical
expect_eq "sh < x.sh: critical" "$(shell_field "echo 'rm -rf ~' > x.sh; sh < x.sh" .tier)" critical

# options whose value is a command line
expect_eq "ssh ProxyCommand: critical" \
	"$(shell_field "ssh -o ProxyCommand='rm -rf ~' host" .tier)" critical
expect_eq "git --upload-pack: critical" \
	"$(shell_field "git fetch --upload-pack='rm -rf ~' origin" .tier)" critical
expect_eq "less +!: critical" "$(shell_field "less '+!rm -rf ~' notes.txt" .tier)" critical

# tar's mode letters in any word; commands run by other programs
expect_eq "tar -C / -x: asks" "$(shell_field 'tar -C / -xf x.tar' .action)" ask
expect_eq "ip netns exec rm: critical" "$(shell_field 'ip netns exec blue rm -rf /' .tier)" critical
expect_eq "run0 rm: critical" "$(shell_field 'run0 rm -rf /' .tier)" critical
expect_eq "awk -i inplace on .bashrc: high" \
	"$(shell_field "awk -i inplace 1 $d/home/.bashrc" .tier)" high

# SQL clients' own commands
expect_eq "psql \\g |CMD: critical" \
	"$(call_field '{"tool":"sql","input":{"query":"SELECT 1 \\g | rm -rf ~"}}' .tier)" critical
expect_eq "sqlite3 .once |CMD: critical" \
	"$(shell_field "sqlite3 x.db '.once |rm -rf ~'" .tier)" critical
expect_eq "DROP TABLESPACE: high" \
	"$(call_field '{"tool":"sql","input":{"query":"DROP TABLESPACE ts"}}' .tier)" high

check "classify runs nothing" test -f "$d/wd/canary"
check "classify deletes nothing" test -L "$d/wd/ls"
finish
