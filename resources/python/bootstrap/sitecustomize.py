"""Kinetoscope live bootstrap.

A viewer that launches a script puts this directory in front of PYTHONPATH, so `site` imports this
module at start-up. It does two things and keeps start-up cheap (no torch import here):

1. Runs the sitecustomize this one shadows (Debian's /usr/lib/python3.X/sitecustomize.py, a
   venv's or conda's), exactly once, so the interpreter behaves as it would without us.
2. When KINETOSCOPE_ENDPOINT is set, starts streaming to the viewer (_kinetoscope_live); torch is
   hooked only when the script imports it.

Python started with -S or -I never imports sitecustomize: such a run is simply not recorded, and
the viewer says that no data arrived.
"""

import os
import sys


def _chain_next_sitecustomize():
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    me = os.path.abspath(__file__)
    for entry in list(sys.path):
        directory = os.path.abspath(entry or os.getcwd())
        if directory == here:
            continue
        try:
            spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [directory])
        except (ImportError, OSError, ValueError):
            continue
        if spec is None or spec.loader is None or not spec.origin:
            continue
        if os.path.abspath(spec.origin) in (me, os.path.splitext(me)[0] + ".pyc"):
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules["_kinetoscope_chained_sitecustomize"] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:  # site.py would report it and go on; so do we
            sys.stderr.write("Error in sitecustomize (%s): %s: %s\n" % (spec.origin, type(e).__name__, e))
        return spec.origin
    return None


_kinetoscope_chained = _chain_next_sitecustomize()

if os.environ.get("KINETOSCOPE_ENDPOINT"):
    try:
        import _kinetoscope_live

        _kinetoscope_live.start(chained=_kinetoscope_chained)
    except Exception as e:  # never break the user's program
        sys.stderr.write("kinetoscope: live recording is off: %s: %s\n" % (type(e).__name__, e))
