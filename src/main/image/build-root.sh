#!/usr/bin/env bash
# Builds the container's root filesystem without any registry: a jlink'd Java runtime from the local JDK
# plus the shared libraries it links against, for a FROM-scratch image built by jib (mvn -Pimage package).
set -euo pipefail
out="$1"
jdk="${2:-${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}}"
rm -rf "$out"
mkdir -p "$out/opt" "$out/tmp"
# what the service needs (no java.desktop, so no X11 or sound libraries); jcmd and JFR stay for diagnostics
modules=java.base,java.logging,java.management,java.management.rmi,java.naming,java.net.http,java.prefs,java.rmi,\
java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,java.xml.crypto,\
java.instrument,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.management,jdk.management.agent,jdk.naming.dns,jdk.net,\
jdk.unsupported,jdk.zipfs,jdk.jfr,jdk.localedata,jdk.charsets,jdk.jcmd
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress=2 \
  --output "$out/opt/java"
# the runtime's own libraries resolve through its RPATH; copy what they need from the build machine
libs=$(for f in $(find "$out/opt/java" -name '*.so*') "$out/opt/java/bin/"*; do ldd "$f" 2>/dev/null || true; done \
  | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -v "^$out" | sort -u)
for l in $libs /lib64/ld-linux-x86-64.so.2; do
  cp --parents -L "$l" "$out/"
done
chmod 1777 "$out/tmp"
echo "image root: $out ($(du -sh "$out" | cut -f1))"
