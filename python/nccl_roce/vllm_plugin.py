"""The vLLM general plugin (entry point group vllm.general_plugins, name nccl_roce).

vLLM's load_general_plugins (vllm/plugins/__init__.py) calls every entry point of that group, through
importlib.metadata, in each process it creates, before the process does any work: the API server, the engine
core, and each worker before it builds its model and its first NCCL communicator. The process has imported torch
by then, and torch has loaded libnccl.so.2, but NCCL reads NCCL_<TYPE>_PLUGIN only when it initialises (the env
plugin at its first variable or ncclGetUniqueId, the others at the first communicator), so variables set here
take effect. docs/install.md ("The wheel") gives the evidence.
"""

import logging
import os

import nccl_roce

# A child of vLLM's "vllm" logger, which vLLM configures (handler, format, VLLM_LOGGING_LEVEL): the line reads
# like vLLM's own, without importing vLLM here.
_logger = logging.getLogger("vllm.nccl_roce")


def auto_enable(environ=None) -> bool:
    """False when NCCL_ROCE_AUTO_ENABLE is 0: the plugin then sets nothing."""
    env = os.environ if environ is None else environ
    return env.get("NCCL_ROCE_AUTO_ENABLE", "").strip() != "0"


def register() -> None:
    """Called by vLLM, possibly several times per process: selects nccl-roce unless opted out. Never raises."""
    try:
        if not auto_enable():
            nccl_roce._say(_logger, logging.INFO, "nccl-roce: NCCL_ROCE_AUTO_ENABLE=0: no NCCL variable set",
                           stacklevel=2)
            return
        nccl_roce.enable(logger=_logger)
    except Exception as error:  # enable() never raises; this guards the opt-out's own line
        try:
            _logger.warning("nccl-roce: no NCCL variable set: %s: %s", type(error).__name__, error)
        except Exception:
            pass
