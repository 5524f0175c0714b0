# Sourced by the device scripts: finds NVRTC and puts it where cudarc looks.
#
# cudarc looks for libnvrtc.so, libnvrtc.so.12, ... but not libnvrtc.so.13, and pip's
# NVIDIA wheels are not on the library path. Find one (NDPAD_NVRTC overrides), link
# it as libnvrtc.so in a folder of our own, and put that folder and the library's own
# (for libnvrtc-builtins) on LD_LIBRARY_PATH. Returns 1, saying why, where there is none.
nvrtc=${NDPAD_NVRTC:-}
if [ -z "$nvrtc" ]; then
  roots=(/usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/lib64 /usr/lib/x86_64-linux-gnu /opt)
  for py in python3 /opt/torch/.venv/bin/python3; do
    command -v "$py" >/dev/null || continue
    while read -r d; do roots+=("$d"); done < <("$py" -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
  done
  nvrtc=$(for r in "${roots[@]}"; do [ -d "$r" ] && find -L "$r" -maxdepth 5 -name 'libnvrtc.so*' ! -name '*builtins*' ! -path '*/stubs/*' 2>/dev/null; done | sort -V | tail -n 1)
fi
if [ -z "$nvrtc" ] || [ ! -e "$nvrtc" ]; then
  echo "no libnvrtc.so* found; set NDPAD_NVRTC=/path/to/libnvrtc.so.N" >&2
  return 1
fi
echo "NVRTC: $nvrtc"
shim=$(mktemp -d)
ln -sf "$(readlink -f "$nvrtc")" "$shim/libnvrtc.so"
export LD_LIBRARY_PATH="$shim:$(dirname "$(readlink -f "$nvrtc")"):${LD_LIBRARY_PATH:-}"
