# Sourced by the scripts that run on the GPU machine of the `device` tool
# (device-report.sh, ladder-device.sh, multi-device.sh), after they set
# `bundle` (the carried folder with the validation layer package and lib/),
# `out` (the log folder) and, optionally, `default_limit` (seconds per step)
# and `default_parts`: installs the Vulkan loader and validation layer
# packages, and defines `step NAME CMD...` (runs CMD with a time limit,
# logging to $out/NAME.log and the outcome to $out/summary.txt) and `has
# PART` (whether $PARTS, default $default_parts, names PART).
mkdir -p "$out"
for f in .gl/*.deb "$bundle"/vulkan-validationlayers.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH=$PWD/$bundle/lib
step() { local name=$1; shift; echo "### $name: $*" | tee -a "$out/summary.txt"; local t0=$SECONDS
  timeout "${LIMIT:-${default_limit:-120}}" "$@" >"$out/$name.log" 2>&1; local rc=$?
  echo "### $name: exit $rc in $((SECONDS - t0)) s" | tee -a "$out/summary.txt"; }
parts=${PARTS:-${default_parts:-}}
has() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
