"""SGLang's way in: the `sglang.srt.plugins` entry point (SGLang's own general-plugin group, loaded by the Engine
and again inside each scheduler subprocess). Chosen over a sitecustomize because SGLang calls it in exactly the
processes that matter and it shadows nothing; it does nothing unless ATLAS_PROBES names a spec file."""


def register() -> None:
    from probes.runtime import install_from_env

    install_from_env("sglang")
