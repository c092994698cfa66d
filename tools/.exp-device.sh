set -u
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export LD_LIBRARY_PATH=$PWD/.gl-metrics/lib
X=$PWD/.gl-metrics/bin; D=/tmp/vb; mkdir -p $D
p=$D/x; "$X/vkssim" bench --write-yuv "$p" --frames 22 -w 3840 -h 2160 -b 8 -p 420 >/dev/null
io=(-r ${p}_ref.yuv -d ${p}_dist.yuv -w 3840 -h 2160 -b 8 -p 420)
for F in "motion" "motion=motion_force_zero=true" "vif" "adm" "psnr"; do
  "$X/vkssim" bench "${io[@]}" --frames 202 --repeat 2 --no-cpu --backend vulkan -n --feature $F --json > $OUT/x.json 2>/dev/null
  python3 -c "
import json,sys; j=json.load(open('$OUT/x.json')); print('$F', round(j['frames_per_second']), {k: round(v,1) for k,v in j['gpu_pass_us_mean'].items()}, 'fif', j.get('frames_in_flight'))"
  "$X/vkssim" bench "${io[@]}" --frames 202 --repeat 2 --no-cpu --backend vulkan -n --feature $F --frames-in-flight 1 --json > $OUT/x.json 2>/dev/null
  python3 -c "
import json,sys; j=json.load(open('$OUT/x.json')); print('$F in-flight 1', round(j['frames_per_second']), {k: round(v,1) for k,v in j['gpu_pass_us_mean'].items()})"
done
"$X/vkssim" score "${io[@]}" --frame_cnt 2 -q -o /tmp/s.xml --trace-chrome $OUT/trace2.json
python3 - <<'PY'
import json,os
t=json.load(open(os.environ['OUT']+'/trace2.json'))
ev=t['traceEvents'] if isinstance(t,dict) else t
spans=[e for e in ev if e.get('ph') in ('X',) ]
spans.sort(key=lambda e:-e.get('dur',0))
for e in spans[:25]: print(round(e['dur']/1000,1),'ms',e.get('name'), e.get('ts'))
PY
rm -f $OUT/trace2.json
