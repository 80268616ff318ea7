"""The Android entry point: python-for-android starts ``main.py`` at the root of the package
(buildozer's ``source.dir``). It starts the same app as ``python -m companion``."""
import os
import sys

from companion.__main__ import main

if __name__ == "__main__":
    if "ANDROID_ARGUMENT" in os.environ:
        # No command line on a tablet (sys.argv holds the launcher's words): the app's own
        # settings decide (data folder: the app's private storage; boxes: the Devices setting).
        main([])
    else:
        sys.exit(main(sys.argv[1:]))
