import json
from pathlib import Path

ON_A_GPU = ["message-type-names-the-device", "b-raises-without-anomaly",
            "bypass-hooks-silent", "relu-inplace-safe", "exp-inplace-safe",
            "autocast-exp-inplace", "save-on-cpu-copies-only-from-the-gpu"]


# en: records/torch-2.11.0-cuda.json -> (2, 11, 0)
# es: records/torch-2.11.0-cuda.json -> (2, 11, 0)
def release(path):
    return tuple(int(n) for n in path.name.split("-")[1].split("."))


found = sorted(Path("records").glob("torch-*-cuda.json"), key=release)
cuda = json.loads(found[-1].read_text()) if found else None
if cuda is None:
    print("records/torch-*-cuda.json: none")
else:
    print(f"{cuda['gpu']}, torch {cuda['torch']}, {cuda['measured']}")
    print('cuda["message"]["tensor"]:', cuda["message"]["tensor"])
    for name in ON_A_GPU:
        claim = cuda["claims"][name]
        print("  ✓" if claim["holds"] else "  ✗", name)


# %% hidden checks: what the pages say of a GPU, and the values their prose quotes

import re
from execbook import glue, glue_words, number
from phase25 import claims, record

cuda_records = record.device_records("cuda")  # release -> record, oldest first
assert cuda == (list(cuda_records.values())[-1] if cuda_records else None), \
    "the cell reads the newest CUDA record, as phase25.record does"

# The same claims on this build's CPU: the pages contrast the two devices.
on_cpu = {name: claims.evaluate(name) for name in ON_A_GPU}
assert all(o.holds for o in on_cpu.values()), \
    f"the pages say these hold on the CPU: {[o.seen for o in on_cpu.values() if not o.holds]}"
if cuda is not None:
    assert cuda.get("device") == "cuda" and cuda["gpu"], "a CUDA record names its GPU"
    failing = [name for name in ON_A_GPU if not cuda["claims"][name]["holds"]]
    assert not failing, f"the pages say these hold on the GPU the CUDA record measured: {failing}"
    assert cuda["message"]["tensor"].startswith("[torch.cuda.FloatTensor "), \
        "the pages say run B's message names a torch.cuda.FloatTensor on a GPU"
    same_release = record.committed().get(cuda["release"])
    if same_release is not None:  # the CPU record of the same release: only the type differs
        on_gpu = {k: v.replace("torch.cuda.", "torch.") if isinstance(v, str) else v
                  for k, v in cuda["message"].items()}
        assert on_gpu == same_release["message"], \
            "the pages say the GPU's message differs from the CPU's of that release only in the type"
    changed = re.search(r"loss (\d+\.\d+) with exp\(\), (\d+\.\d+) with exp_\(\); worst relative "
                        r"change of a parameter's gradient (\S+)$",
                        cuda["claims"]["autocast-exp-inplace"]["seen"])
    assert changed, "the autocast claim's evidence reads: loss .. with exp(), .. with exp_(); worst .."
    gpu, version = cuda["gpu"], cuda["torch"]
    path = f"records/torch-{cuda['release']}-cuda.json"
    glue_words("gpu_source", {
        "es": f"se midió con torch {version} en una {gpu}, con gpu/lesson_cuda.sh, "
              f"no en esta construcción, que se ejecuta en la CPU; lo guarda {path}",
        "en": f"measured with torch {version} on an {gpu} by gpu/lesson_cuda.sh, "
              f"not by this build, which runs on the CPU; {path} keeps it"})
    loss_a, loss_b, worst = changed[1], changed[2], float(changed[3])
    glue_words("gpu_exp_change", {
        "es": f"la pérdida pasa de {loss_a.replace('.', ',')} a {loss_b.replace('.', ',')}, y el gradiente "
              f"de un parámetro cambia hasta un {number(worst, 'es', '.1%')}",
        "en": f"the loss goes from {loss_a} to {loss_b}, and a parameter's gradient changes by up to "
              f"{number(worst, 'en', '.1%')}"})
    glue("gpu_tensor", cuda["message"]["tensor"].replace("[batch, tokens, n_embd]", "[...]"))
else:
    glue_words("gpu_source", {
        "es": "se midió en una GPU NVIDIA H200 con torch 2.11.0 para el proyecto, no en esta construcción: "
              "records/ no tiene aún ningún registro de CUDA (lo hace gpu/lesson_cuda.sh)",
        "en": "measured on an NVIDIA H200 GPU with torch 2.11.0 for the project, not by this build: "
              "records/ has no CUDA record yet (gpu/lesson_cuda.sh makes one)"})
    glue_words("gpu_exp_change", {"es": "la pérdida y los gradientes cambian",
                                  "en": "the loss and the gradients change"})
    glue("gpu_tensor", "[torch.cuda.FloatTensor [...]]")
glue("gpu_cpu_tensor", claims.evaluate("message-type-names-the-device").seen.removeprefix("on cpu: ")
     .split(" [")[0] + " [...]]")
