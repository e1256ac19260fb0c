"""vLLM's way in: the `vllm.general_plugins` entry point. vLLM calls it in the front end, in EngineCore and in every
worker; it does nothing unless ATLAS_PROBES names a spec file."""


def register() -> None:
    from probes.runtime import install_from_env

    install_from_env("vllm")
