# SPDX-License-Identifier: MIT
"""Finding libskit and declaring the C functions the package calls.

Only ctypes from the standard library. The one C structure mirrored here
is skit_error, which the caller allocates and whose layout is part of the
library's ABI (changing it would change the soname). Every option struct
is built by the library itself from key/value strings (skit/ffi.h), and
every structure the library returns comes back as JSON text.
"""
import ctypes
import ctypes.util
import os

# The names the system's loader is asked for, soname first: libskit.so.0
# is what an installed library with this ABI answers to.
SONAMES = ("libskit.so.0", "libskit.so")


class CError(ctypes.Structure):
    """skit_error (skit/common.h): filled in by a failing call."""
    _fields_ = [("code", ctypes.c_int), ("line", ctypes.c_uint),
                ("column", ctypes.c_uint), ("message", ctypes.c_char * 256)]


def _load():
    """The library and how it was found; ImportError naming each try."""
    env = os.environ.get("SKIT_LIBRARY")
    if env:
        # A path, never a name for the loader's search: "libskit.so"
        # means the file in the current folder, as a user would expect.
        full = os.path.abspath(env)
        try:
            return ctypes.CDLL(full), full
        except OSError as e:
            raise ImportError("skit: cannot load libskit from "
                              "SKIT_LIBRARY=%s: %s" % (env, e)) from None
    tried = []
    names = list(SONAMES)
    found = ctypes.util.find_library("skit")
    if found and found not in names:
        names.append(found)
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            tried.append("%s (%s)" % (name, e))
    raise ImportError(
        "skit: cannot find libskit. SKIT_LIBRARY is not set, and the "
        "system's loader found none of: " + "; ".join(tried) + ". Install "
        "skit (cmake --install, then ldconfig for a system prefix) or set "
        "SKIT_LIBRARY to the path of libskit.so (e.g. "
        "/usr/local/lib/libskit.so.0)")


lib, path = _load()

P = ctypes.c_void_p
S = ctypes.c_char_p
E = ctypes.POINTER(CError)
PP = ctypes.POINTER(ctypes.c_void_p)
I = ctypes.c_int
Z = ctypes.c_size_t
B = ctypes.c_bool

APPROVE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
TRACE_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p,
                            ctypes.c_void_p)
TEXT_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_char),
                           ctypes.c_size_t, ctypes.c_void_p)
ASK_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p,
                          ctypes.c_void_p)
TOOL_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_void_p, ctypes.POINTER(ctypes.c_bool),
                           ctypes.c_void_p)

# name: (restype, argtypes)
_PROTOS = {
    "skit_version": (S, []),
    "skit_free": (None, [P]),
    "skit_strerror": (S, [I]),
    "skit_ffi_status_name": (S, [I]),
    "skit_ffi_options": (I, [PP, S, P, E]),
    "skit_ffi_hooks_new": (I, [PP, APPROVE_FN, TRACE_FN, TEXT_FN, P, E]),
    "skit_ffi_hooks_free": (None, [P]),
    "skit_ffi_hooks_cancel": (None, [P, B]),
    "skit_ffi_hooks_add_tool": (I, [P, S, S, S, S, TOOL_FN, E]),
    "skit_ffi_hooks_set_ask": (None, [P, ASK_FN]),
    "skit_tool_output_append": (I, [P, ctypes.c_char_p, Z]),
    # skills
    "skit_ffi_skill_load": (I, [PP, S, P, E]),
    "skit_ffi_skill_diags": (I, [PP, P, E]),
    "skit_skill_free": (None, [P]),
    "skit_skill_valid": (B, [P]),
    "skit_skill_has_warnings": (B, [P]),
    "skit_skill_name": (P, [P]),
    "skit_skill_known_name": (P, [P]),
    "skit_skill_description": (P, [P]),
    "skit_skill_dir": (P, [P]),
    "skit_skill_file": (P, [P]),
    "skit_skill_allowed_tools": (P, [P]),
    "skit_skill_flags": (ctypes.c_uint, [P]),
    "skit_skill_body": (I, [P, PP, ctypes.POINTER(Z), E]),
    "skit_skill_properties_json": (I, [PP, P, E]),
    # registries
    "skit_registry_new": (I, [PP, E]),
    "skit_registry_free": (None, [P]),
    "skit_registry_add_root": (I, [P, S, S, E]),
    "skit_ffi_registry_add_default_roots": (I, [P, P, E]),
    "skit_registry_scan": (I, [P, E]),
    "skit_registry_project_dir": (P, [P]),
    "skit_registry_root_count": (Z, [P]),
    "skit_registry_root": (None, [P, Z, PP, PP, ctypes.POINTER(B),
                                  ctypes.POINTER(Z)]),
    "skit_ffi_registry_entries": (I, [PP, P, B, E]),
    "skit_ffi_registry_diags": (I, [PP, P, E]),
    "skit_ffi_registry_search": (I, [PP, P, S, ctypes.c_uint, Z, E]),
    "skit_ffi_registry_index": (I, [PP, P, P, E]),
    # policies
    "skit_policy_new": (I, [PP, E]),
    "skit_policy_free": (None, [P]),
    "skit_policy_add": (I, [P, I, S, E]),
    "skit_policy_add_flag": (I, [P, I, S, E]),
    "skit_policy_set_yes": (None, [P, B]),
    "skit_policy_set_network": (None, [P, B]),
    "skit_policy_set_no_network": (None, [P, B]),
    "skit_policy_load_config": (I, [P, S, B, E]),
    # the skills layer
    "skit_ffi_host_new": (I, [PP, P, P, P, P, E]),
    "skit_ffi_host_index": (I, [PP, P, P, E]),
    "skit_host_tools": (I, [P, I, PP, E]),
    "skit_host_instructions": (I, [P, PP, E]),
    "skit_host_call": (I, [P, S, S, PP, ctypes.POINTER(B),
                           ctypes.POINTER(B), E]),
    "skit_host_activate": (I, [P, S, S, PP, ctypes.POINTER(B), E]),
    "skit_host_read_resource": (I, [P, S, S, PP, ctypes.POINTER(B), E]),
    "skit_host_run_script": (I, [P, S, S, P, Z, PP, ctypes.POINTER(B), E]),
    "skit_host_run_dir": (P, [P]),
    "skit_host_finish": (I, [P, S, E]),
    "skit_host_free": (None, [P]),
    # models and agents
    "skit_ffi_model_new": (I, [PP, P, P, E]),
    "skit_model_free": (None, [P]),
    "skit_ffi_agent_new": (I, [PP, P, P, P, P, P, E]),
    "skit_agent_send": (I, [P, S, PP, E]),
    "skit_ffi_agent_state": (I, [PP, P, E]),
    "skit_agent_run_dir": (P, [P]),
    "skit_agent_finish": (I, [P, S, I, E]),
    "skit_agent_free": (None, [P]),
    "skit_agent_status": (S, [I]),
}


def _declare():
    missing = []
    for name, (res, args) in _PROTOS.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = res
        fn.argtypes = args
    if missing:
        raise ImportError("skit: the libskit at %s is too old for this "
                          "package: it lacks %s" % (path, ", ".join(missing)))


_declare()
