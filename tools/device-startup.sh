#!/usr/bin/env bash
# Start-up on the H200 (carry .gl and .gl-metrics): whole 2-frame 4K VMAF
# `score` runs with the loader's every driver and with NVIDIA's alone
# (VK_ICD_FILENAMES), `vkssim devices` likewise, and the start-up spans of
# one run's --trace-chrome trace.
. tools/bench-device-common.sh
clip 3840 2160 8
ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>&1
io2=("${io[@]}" -m version=vmaf_v0.6.1 --frame_cnt 2 -q)
t() { local a b; a=$(date +%s.%N); "$@"; b=$(date +%s.%N); awk -v a=$a -v b=$b 'BEGIN { printf "%.3f\n", b - a }'; }
for k in 1 2 3; do echo "score default: $(t $X/vkssim score "${io2[@]}" -o $D/s.xml)"; done
nv=$(ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json 2>/dev/null | head -1); echo "nv icd: $nv"
for k in 1 2 3; do echo "score nvidia icd only: $(VK_ICD_FILENAMES=$nv t $X/vkssim score "${io2[@]}" -o $D/s.xml)"; done
for k in 1 2; do echo "devices: $(t $X/vkssim devices >/dev/null)"; done
for k in 1 2; do echo "devices nvidia only: $(VK_ICD_FILENAMES=$nv t $X/vkssim devices > /dev/null)"; done
$X/vkssim score "${io2[@]}" -o $D/s.xml --trace-chrome $OUT/t.json
python3 - $OUT/t.json <<'PY'
import json,sys
ev=json.load(open(sys.argv[1]))
ev=ev if isinstance(ev,list) else ev.get("traceEvents",[])
t0=min(e.get("ts",0) for e in ev if "ts" in e)
for e in ev:
    n=e.get("name","")
    if e.get("ph") in ("X","B") and (n.startswith("start") or n.startswith("end") or "frame" in n) :
        print(f'{(e["ts"]-t0)/1000:8.1f} ms  {e.get("dur",0)/1000:7.1f} ms  {n}')
PY
VK_LOADER_DEBUG=driver $X/vkssim devices 2>&1 | grep -i -E "icd|driver" | head -20
