"""vLLM's way in: the `vllm.general_plugins` entry point. vLLM calls it in the front end, in EngineCore and in every
worker; it installs the probe when ATLAS_PROBES names a spec file, and records call edges (probes.edges) when the
spec or ATLAS_EDGES asks; otherwise it does nothing."""


def register() -> None:
    from probes import edges
    from probes.runtime import install_from_env

    edges.install_from_env("vllm", install_from_env("vllm"))
