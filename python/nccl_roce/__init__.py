"""nccl-roce from a wheel: where its library, command and data are, and the NCCL variables that select it.

NCCL finds a plugin either by name (NCCL_NET_PLUGIN=roce: libnccl-net-roce.so on the loader's path) or by the
path the variable holds. A wheel lives in site-packages, which is on no loader path, and cannot hold the four
plugin names (a wheel has no symbolic links; four copies would load as four separate libraries, splitting the
tuner from its profiler). So every variable names the one library by its absolute path. The rules NCCL applies
to such a value, and from which release, are in docs/install.md ("The wheel").

vLLM calls `nccl_roce.vllm_plugin.register` in each of its processes (entry point group vllm.general_plugins);
anything else calls `enable()` once before its first communicator.
"""

import logging
import os
from typing import Dict, List, NamedTuple, Optional

from nccl_roce._version import VERSION as __version__

__all__ = ["__version__", "library_dir", "library_path", "command_path", "share_dir", "plugin_settings", "enable"]

# NCCL copies the value of NCCL_<TYPE>_PLUGIN into a 255-byte buffer (src/plugin/plugin_open.cc, MAX_STR_LEN,
# NCCL 2.26 and later): a longer path would be cut, and NCCL would open a file that is not there.
NCCL_PLUGIN_VALUE_LIMIT = 254

# Selected in every process; NCCL_PROFILER_PLUGIN only when statistics are asked for (NCCL_ROCE_STATS), as
# nothing is timed otherwise.
_ALWAYS = ("NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN")
_PROFILER = "NCCL_PROFILER_PLUGIN"

_logger = logging.getLogger(__name__)
_said_in_process = None  # the pid that has logged its line (a forked child says its own)


def package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def library_dir() -> str:
    """The folder of libnccl-roce.so (for LD_LIBRARY_PATH, where a process starts after it is known)."""
    return os.path.join(package_dir(), "lib")


def library_path() -> str:
    """libnccl-roce.so: the value of every NCCL_<TYPE>_PLUGIN this package sets."""
    return os.path.join(library_dir(), "libnccl-roce.so")


def command_path() -> str:
    """The nccl-roce command (the `nccl-roce` script on PATH runs it)."""
    return os.path.join(package_dir(), "bin", "nccl-roce")


def share_dir() -> str:
    """share/nccl-roce: built-in policies, examples, the Grafana dashboard, the JSON Schemas."""
    return os.path.join(package_dir(), "share", "nccl-roce")


class PluginSetting(NamedTuple):
    name: str  # NCCL_NET_PLUGIN, ...
    value: str  # what this package selects: library_path()
    user_value: Optional[str]  # what the environment already holds; None when unset or empty

    @property
    def kept(self) -> bool:
        """The user's value stays: it is set and names something else than this package's library."""
        return self.user_value is not None and self.user_value != self.value


def plugin_settings(environ=None) -> List[PluginSetting]:
    """The variables this package selects in `environ` (default: os.environ), with what it holds already.

    An empty value counts as unset, as NCCL reads it.
    """
    env = os.environ if environ is None else environ
    names = list(_ALWAYS) + ([_PROFILER] if env.get("NCCL_ROCE_STATS") else [])
    return [PluginSetting(name, library_path(), env.get(name) or None) for name in names]


def _unusable_reason() -> Optional[str]:
    """Why NCCL could not load the library by the path this package gives, or None."""
    path = library_path()
    if not os.access(path, os.R_OK):
        return f"{path} is missing or unreadable (a broken install of the nccl-roce wheel)"
    if len(path) > NCCL_PLUGIN_VALUE_LIMIT:
        return (f"its path is {len(path)} characters long, and NCCL reads at most {NCCL_PLUGIN_VALUE_LIMIT}; "
                "install the wheel where the path is shorter")
    return None


def enable(environ=None, logger: Optional[logging.Logger] = None) -> Dict[str, str]:
    """Selects nccl-roce for the NCCL of this process: sets each variable of plugin_settings() that is unset.

    Call it before the process's first NCCL communicator (NCCL reads the variables then, not when it is loaded).
    A value the user set always wins. Safe to call any number of times; never raises. Says once per process, at
    INFO on `logger` (default: the `nccl_roce` logger), what it set and kept, or at WARNING why it set nothing.
    Returns the variables it set in this call.
    """
    log = logger or _logger
    try:
        env = os.environ if environ is None else environ
        reason = _unusable_reason()
        if reason is not None:
            _say(log, logging.WARNING, "nccl-roce: NCCL plugin variables not set: %s", reason)
            return {}
        settings = plugin_settings(env)
        newly = {s.name: s.value for s in settings if s.user_value is None}
        env.update(newly)
        _say(log, logging.INFO, "nccl-roce: %s", _summary(settings))
        return newly
    except Exception as error:  # never raise into vLLM's or the user's start-up
        try:
            _say(log, logging.WARNING, "nccl-roce: NCCL plugin variables not set: %s: %s", type(error).__name__,
                 error)
        except Exception:
            pass
        return {}


def _summary(settings: List[PluginSetting]) -> str:
    ours = [s.name for s in settings if not s.kept]
    parts = [f"{', '.join(ours)} set to {library_path()}"] if ours else []
    parts += [f"{s.name}={s.user_value} kept (set by the user)" for s in settings if s.kept]
    if _PROFILER not in [s.name for s in settings]:
        parts.append(f"{_PROFILER} left unset (no NCCL_ROCE_STATS: nothing is timed)")
    return "; ".join(parts)


def _say(log: logging.Logger, level: int, message: str, *args, stacklevel: int = 3) -> None:
    """Logs at `level` the first time in this process, at DEBUG after. The record names the caller of enable() (or
    of whatever calls _say with its own `stacklevel`), as vLLM's lines name theirs."""
    global _said_in_process
    first = _said_in_process != os.getpid()
    _said_in_process = os.getpid()
    log.log(level if first else logging.DEBUG, message, *args, stacklevel=stacklevel)
