#!/bin/sh
# 125-classifier-review11.sh: what an eleventh hostile review of the
# classifier found, through the real binary in a real workdir: programs
# that run the text they are given, which were unknown programs (medium
# whatever the text held): m4's syscmd, gnuplot's system, ! and "< CMD",
# exiftool's Perl -if, ghostscript's %pipe% output and -dNOSAFER,
# ImageMagick's |CMD files and ephemeral:, pandoc's --filter, latexmk's
# -pdflatex= and pdflatex -shell-escape; the inline code of guile, erl,
# pwsh's rm alias, osascript's do shell script and nu -c; emacs -f
# package-refresh-contents (low); cmake -D of a compiler launcher, meson
# devenv CMD and tox exec -- CMD (medium), meson subprojects download (no
# network rule); nix eval --expr reading a secret and nix search of the
# registry's nixpkgs (low); SQL a call writes to a file, then runs with
# psql -f (medium); SQL dblink_exec runs (high for a DROP DATABASE), SET
# sql_log_bin = 0 (low), ENGINE = BLACKHOLE and ALTER COLUMN ... USING 0
# (medium); a write_file of a named dev container configuration (medium,
# though its initializeCommand runs on the host) and of home files that
# run later (outside_workdir, now persistence); curl's and wget's other
# output files (unrecorded); and `bash -o <<E` with a history word, which
# crashed classify. Routine neighbours keep their tier. Nothing is
# executed: a canary file must survive.
. tests/e2e/lib.sh
need jq
tmpdir_make
d=$T_DIR
mkdir -p "$d/home" "$d/wd/src"
: >"$d/wd/canary"
HOME="$d/home"
export HOME
sql_field() { call_field "$(jq -cn --arg q "$1" '{tool:"sql",input:{query:$q}}')" "$2"; }

# programs that run the text they are given
expect_eq "echo 'syscmd(rm -rf ~)' | m4: denied" \
	"$(shell_field "echo 'syscmd(rm -rf ~)' | m4" .action)" deny
expect_eq "gnuplot -e '!rm -rf ~': denied" "$(shell_field "gnuplot -e '!rm -rf ~'" .action)" deny
expect_eq "gnuplot -e plot \"< rm -rf ~\": denied" \
	"$(shell_field "gnuplot -e 'plot \"< rm -rf ~\"'" .action)" deny
expect_eq "exiftool -if system(rm -rf ~): denied" \
	"$(shell_field "exiftool -if 'system(\"rm -rf ~\")' x.jpg" .action)" deny
expect_eq "gs -sOutputFile=%pipe%rm -rf ~: denied" \
	"$(shell_field "gs -sOutputFile='%pipe%rm -rf ~' in.ps" .action)" deny
expect_eq "gs -dNOSAFER: high" "$(shell_field 'gs -dNOSAFER in.ps' .tier)" high
expect_eq "convert '|rm -rf ~' out.png: denied" \
	"$(shell_field "convert '|rm -rf ~' out.png" .action)" deny
expect_eq "convert ephemeral:/etc/passwd: fs.delete" \
	"$(shell_field "convert 'ephemeral:/etc/passwd' out.png" '.rules | index("fs.delete") != null')" true
expect_eq "convert x.png /etc/cron.d/x: high" "$(shell_field 'convert x.png /etc/cron.d/x' .tier)" high

# document tools
expect_eq "pandoc --filter 'rm -rf ~': denied" \
	"$(shell_field "pandoc --filter 'rm -rf ~' x.md" .action)" deny
expect_eq "latexmk -pdflatex='rm -rf ~': denied" \
	"$(shell_field "latexmk -pdflatex='rm -rf ~' x.tex" .action)" deny
expect_eq "pdflatex -shell-escape: high" "$(shell_field 'pdflatex -shell-escape x.tex' .tier)" high
expect_eq "pandoc x.md -o out.pdf --pdf-engine=xelatex: medium" \
	"$(shell_field 'pandoc x.md -o out.pdf --pdf-engine=xelatex' .tier)" medium

# interpreters whose inline code was an unknown program's argument
expect_eq "guile -c (system rm -rf ~): denied" \
	"$(shell_field "guile -c '(system \"rm -rf ~\")'" .action)" deny
expect_eq "erl -eval os:cmd(rm -rf ~): denied" \
	"$(shell_field "erl -noshell -eval 'os:cmd(\"rm -rf ~\")' -s init stop" .action)" deny
expect_eq "nu -c 'rm -rf ~': denied" "$(shell_field "nu -c 'rm -rf ~'" .action)" deny
expect_eq "pwsh -c 'rm -r -fo ~': high" "$(shell_field "pwsh -c 'rm -r -fo ~'" .tier)" high
expect_eq "osascript do shell script rm -rf ~: denied" \
	"$(shell_field "osascript -e 'do shell script \"rm -rf ~\"'" .action)" deny

expect_eq "emacs --batch -f package-refresh-contents: high" \
	"$(shell_field 'emacs --batch -f package-refresh-contents' .tier)" high

# build tools that run a command they are given
expect_eq "cmake -DCMAKE_C_COMPILER_LAUNCHER='rm -rf ~': denied" \
	"$(shell_field "cmake -B build -DCMAKE_C_COMPILER_LAUNCHER='rm -rf ~'" .action)" deny
expect_eq "meson devenv -C build rm -rf ~: denied" \
	"$(shell_field 'meson devenv -C build rm -rf ~' .action)" deny
expect_eq "tox exec -- rm -rf ~: denied" "$(shell_field 'tox exec -- rm -rf ~' .action)" deny
expect_eq "meson subprojects download: net.fetch" \
	"$(shell_field 'meson subprojects download' '.rules | index("net.fetch") != null')" true

# nix eval's expression and the flakes it fetches
expect_eq "nix eval --expr readFile /etc/shadow: secrets.read" \
	"$(shell_field "nix eval --raw --expr 'builtins.readFile \"/etc/shadow\"'" '.rules | index("secrets.read") != null')" true
expect_eq "nix search nixpkgs hello: high" "$(shell_field 'nix search nixpkgs hello' .tier)" high
expect_eq "nix eval .#x.name: low" "$(shell_field 'nix eval .#packages.x86_64-linux.default.name' .tier)" low

# SQL a call writes to a file, then runs; a makefile it writes stays a build
expect_eq "printf DROP DATABASE > x.sql; psql -f x.sql: denied" \
	"$(shell_field "printf 'DROP DATABASE prod;\\n' > x.sql; psql -f x.sql" .action)" deny
expect_eq "cat > Makefile (clean: rm -f); make: medium" \
	"$(shell_field "$(printf "cat > Makefile <<'EOF'\nall: app\napp: main.c\n\tcc -o app main.c\nclean:\n\trm -f app *.o\nEOF\nmake")" .tier)" medium

# SQL run on a dblink connection
expect_eq "dblink_exec DROP DATABASE: critical" \
	"$(sql_field "SELECT dblink_exec('dbname=postgres', 'DROP DATABASE prod')" .tier)" critical

expect_eq "SET sql_log_bin = 0: high" "$(sql_field 'SET sql_log_bin = 0' .tier)" high
expect_eq "ALTER TABLE t ENGINE = BLACKHOLE: high" \
	"$(sql_field 'ALTER TABLE t ENGINE = BLACKHOLE' .tier)" high
expect_eq "ALTER COLUMN c TYPE int USING 0: high" \
	"$(sql_field 'ALTER TABLE t ALTER COLUMN c TYPE int USING 0' .tier)" high
expect_eq "ALTER COLUMN c TYPE int USING c::integer: medium" \
	"$(sql_field 'ALTER TABLE t ALTER COLUMN c TYPE int USING c::integer' .tier)" medium

# a named dev container configuration
expect_eq "write_file .devcontainer/py/devcontainer.json: high" \
	"$(call_field '{"tool":"write_file","input":{"path":".devcontainer/py/devcontainer.json","content":"{}"}}' .tier)" high

# curl's and wget's other output files
expect_eq "curl -c ~/.bashrc URL: persistence" \
	"$(shell_field 'curl -c ~/.bashrc https://example.com' '.rules | index("fs.write.persistence") != null')" true
expect_eq "wget -a /etc/cron.d/x URL: outside" \
	"$(shell_field 'wget -a /etc/cron.d/x https://example.com' '.rules | index("fs.write.outside_workdir") != null')" true

# home files that run at a later start, or that PATH finds first
for p in bin/ls .ipython/profile_default/startup/x.py .config/i3/config \
	.local/share/dbus-1/services/org.x.service; do
	expect_eq "write_file ~/$p: persistence" \
		"$(call_field "{\"tool\":\"write_file\",\"input\":{\"path\":\"$HOME/$p\",\"content\":\"x\"}}" \
			'.rules | index("fs.write.persistence") != null')" true
done

# routine neighbours
expect_eq "identify x.png: low" "$(shell_field 'identify x.png' .tier)" low
expect_eq "convert in.png -resize 50% out.png: medium" \
	"$(shell_field 'convert in.png -resize 50% out.png' .tier)" medium
expect_eq "exiftool -json x.jpg: low" "$(shell_field 'exiftool -json x.jpg' .tier)" low
expect_eq "gs -o out.pdf -sDEVICE=pdfwrite in.pdf: medium" \
	"$(shell_field 'gs -o out.pdf -sDEVICE=pdfwrite in.pdf' .tier)" medium
expect_eq "gnuplot plot.gp: medium" "$(shell_field 'gnuplot plot.gp' .tier)" medium
expect_eq "pwsh -c Get-ChildItem | Format-Table: medium" \
	"$(shell_field "pwsh -c 'Write-Host \"Confirm\"; Get-ChildItem | Format-Table'" .tier)" medium
expect_eq "cmake -DCMAKE_C_COMPILER_LAUNCHER=ccache: medium" \
	"$(shell_field 'cmake -B build -DCMAKE_C_COMPILER_LAUNCHER=ccache' .tier)" medium
expect_eq "meson compile -C build: medium" "$(shell_field 'meson compile -C build' .tier)" medium
expect_eq "tox -e lint -- --fix: medium" "$(shell_field 'tox -e lint -- --fix' .tier)" medium
expect_eq "dblink SELECT 1: high (network)" \
	"$(sql_field "SELECT * FROM dblink('dbname=x', 'SELECT 1') AS t(a int)" .tier)" high
expect_eq "write_file .devcontainer/py/Dockerfile: medium" \
	"$(call_field '{"tool":"write_file","input":{"path":".devcontainer/py/Dockerfile","content":"FROM x"}}' .tier)" medium

# a shell's last -o without its name crashed classify (SIGSEGV on 5a0a230)
expect_eq "bash -o <<E (a history word) E: answered" \
	"$(shell_field "$(printf 'bash -o <<E\n!:0-3\nE')" .tier)" medium

check "classify runs nothing" test -f "$d/wd/canary"
finish
