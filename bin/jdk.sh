# Sourced by the scripts in bin/: sets JAVA to a java >= 22, or explains what to install.
uring4j_find_jdk() {
  local c v
  for c in "${JAVA_HOME:-}" /usr/lib/jvm/* "$HOME"/.jdks/* "$HOME"/.sdkman/candidates/java/* /opt/java/* ; do
    [ -n "$c" ] && [ -x "$c/bin/java" ] || continue
    v=$("$c/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    case "$v" in ''|1.*) continue ;; esac
    if [ "${v%%.*}" -ge 22 ] 2>/dev/null; then JAVA="$c/bin/java"; export URING4J_JDK="$c"; return 0; fi
  done
  echo "uring4j: no JDK >= 22 found (looked at JAVA_HOME, /usr/lib/jvm, ~/.jdks, ~/.sdkman, /opt/java)." >&2
  echo "uring4j: install one, e.g. Eclipse Temurin 25 into /usr/lib/jvm, or set JAVA_HOME to it." >&2
  return 1
}
