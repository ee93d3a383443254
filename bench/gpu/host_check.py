"""What this host's Python offers bench/gpu/run.sh, as one JSON object on stdout.

Never raises: a module that cannot be imported is reported as "<name>_error", so the shell
script can name the missing piece instead of showing a traceback.
"""
import importlib
import json
import platform
import sys


def error_text(error):
    return f"{type(error).__name__}: {error}"


def torch_facts(facts):
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any failure means "no usable torch"
        facts["torch_error"] = error_text(error)
        return
    facts["torch"] = torch.__version__
    facts["torch_cuda"] = torch.version.cuda
    facts["cmake_prefix_path"] = getattr(torch.utils, "cmake_prefix_path", None)
    # The kit's Debian libraries (GoogleTest, SentencePiece) use the C++11 ABI; a LibTorch
    # built with the old one cannot link against them.
    facts["cxx11_abi"] = bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", False))
    try:
        facts["cuda_available"] = bool(torch.cuda.is_available())
    except Exception as error:  # noqa: BLE001
        facts["cuda_available"] = False
        facts["cuda_error"] = error_text(error)
    if facts["cuda_available"]:
        properties = torch.cuda.get_device_properties(0)
        facts["device_count"] = torch.cuda.device_count()
        facts["device_name"] = properties.name
        facts["capability"] = f"{properties.major}.{properties.minor}"
        facts["total_memory"] = properties.total_memory
        try:
            facts["nccl"] = ".".join(str(part) for part in torch.cuda.nccl.version())
        except Exception as error:  # noqa: BLE001
            facts["nccl_error"] = error_text(error)


def module_facts(facts, name):
    try:
        module = importlib.import_module(name)
        facts[name] = getattr(module, "__version__", "unknown")
    except Exception as error:  # noqa: BLE001
        facts[name + "_error"] = error_text(error)


def diffusers_facts(facts):
    try:
        import diffusers
        from diffusers import CogVideoXTransformer3DModel  # noqa: F401
        from diffusers.models.embeddings import get_3d_rotary_pos_embed  # noqa: F401

        facts["diffusers"] = diffusers.__version__
        facts["diffusers_path"] = diffusers.__file__
    except Exception as error:  # noqa: BLE001
        facts["diffusers_error"] = error_text(error)


def main():
    facts = {"python": platform.python_version(), "python_executable": sys.executable}
    torch_facts(facts)
    if "--reference" in sys.argv[1:]:
        module_facts(facts, "transformers")
        module_facts(facts, "peft")
        diffusers_facts(facts)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
