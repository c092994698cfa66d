# Sourced by the scripts that prepare a bundle for the GPU machine of the
# `device` tool (device-bundle.sh, metrics-bundle.sh, encoded-bundle.sh,
# ladder-bundle.sh), after they set `x` (the bundle's folder, such as
# .gl-metrics): goes to the checkout's top, adds /.gl/ and /$x/ to its ignore
# list (a worktree's is the main checkout's), and puts the Vulkan loader
# packages in .gl/ when they are missing. Defines `copy_tests DEST CARGO_ARGS
# -- NAME...`: builds the release test binaries that CARGO_ARGS select (as
# `-p vkssim --test api`) and copies each NAME's to DEST/NAME.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
for d in /.gl/ "/$x/"; do
  grep -qx "$d" "$exclude" 2>/dev/null || echo "$d" >> "$exclude"
done
ls .gl/libvulkan1_*.deb >/dev/null 2>&1 || bash ../shared/tools/vulkan-loader.sh >/dev/null
copy_tests() {
  local dest=$1 args=() json exe t
  shift
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  # cargo prints each test binary's path with --message-format=json.
  json=$(cargo test --release --no-run --message-format=json "${args[@]}" 2>/dev/null)
  for t in "$@"; do
    exe=$(printf '%s\n' "$json" | grep "\"name\":\"$t\"" | grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)
    [ -n "$exe" ] || { echo "no test binary for $t" >&2; exit 1; }
    cp "$exe" "$dest/$t"
  done
}
