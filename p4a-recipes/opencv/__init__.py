"""python-for-android recipe for OpenCV 4.8 with its Python bindings (cv2), replacing p4a's own
``opencv`` recipe (4.5.1) through buildozer's ``p4a.local_recipes``.

Why 4.8: vision/ uses ``cv2.aruco.ArucoDetector`` and ``cv2.aruco.generateImageMarker`` (moved
into OpenCV's main ``objdetect`` module in 4.7; 4.5.1 has neither, and no aruco without the
contrib modules) and ``cv2.QRCodeDetectorAruco`` (4.8). tests/core/test_android_readiness.py
checks this version against what vision/ calls.

NOT BUILT HERE: the build machine has no Android SDK/NDK, so this recipe has never run. It follows
p4a's own opencv recipe (the same CMake options, which the NDK toolchain needs), with one change:
instead of a patch file written against 4.0's line numbers, ``prebuild_arch`` makes the same two
edits to OpenCV's CMake files by text and stops with a clear error if the text is not there.
"""
from multiprocessing import cpu_count
from os.path import exists, join

import sh
from pythonforandroid.logger import info, shprint
from pythonforandroid.recipe import NDKRecipe
from pythonforandroid.util import BuildInterruptingException, current_directory

# OpenCV's CMake refuses Python bindings on Android; P4A=ON lets them through (p4a's patch).
CMAKE_EDITS = {
    "cmake/OpenCVDetectPython.cmake": [
        ("if(NOT ANDROID AND NOT IOS)", "if(P4A OR NOT ANDROID AND NOT IOS)"),
        ("endif(NOT ANDROID AND NOT IOS)", "endif(P4A OR NOT ANDROID AND NOT IOS)"),
    ],
    "modules/python/CMakeLists.txt": [
        ("if(ANDROID OR APPLE_FRAMEWORK OR WINRT)",
         "if(ANDROID AND NOT P4A OR APPLE_FRAMEWORK OR WINRT)"),
    ],
}


class OpenCVRecipe(NDKRecipe):
    version = "4.8.0"
    url = "https://github.com/opencv/opencv/archive/{version}.zip"
    depends = ["numpy"]
    # objdetect holds aruco and the QR detectors since 4.7.
    generated_libraries = [
        "libopencv_core.so", "libopencv_imgproc.so", "libopencv_imgcodecs.so",
        "libopencv_videoio.so", "libopencv_highgui.so", "libopencv_features2d.so",
        "libopencv_flann.so", "libopencv_calib3d.so", "libopencv_objdetect.so",
        "libopencv_dnn.so", "libopencv_photo.so", "libopencv_video.so", "libopencv_ml.so",
        "libopencv_stitching.so",
    ]

    def get_lib_dir(self, arch):
        return join(self.get_build_dir(arch.arch), "build", "lib", arch.arch)

    def get_recipe_env(self, arch):
        env = super().get_recipe_env(arch)
        env["ANDROID_NDK"] = self.ctx.ndk_dir
        env["ANDROID_SDK"] = self.ctx.sdk_dir
        return env

    def prebuild_arch(self, arch):
        super().prebuild_arch(arch)
        src = self.get_build_dir(arch.arch)
        marker = join(src, ".p4a-cmake-edited")
        if exists(marker):
            return
        for rel, edits in CMAKE_EDITS.items():
            path = join(src, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for old, new in edits:
                if old not in text:
                    raise BuildInterruptingException(
                        "opencv %s: %s no longer contains %r; update CMAKE_EDITS"
                        % (self.version, rel, old))
                text = text.replace(old, new, 1)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        open(marker, "w").close()
        info("opencv %s: CMake edited to build the Python bindings for Android" % self.version)

    def build_arch(self, arch):
        build_dir = join(self.get_build_dir(arch.arch), "build")
        shprint(sh.mkdir, "-p", build_dir)
        py = self.ctx.python_recipe
        major = py.version[0]
        site_packages = self.ctx.get_site_packages_dir(arch)
        link_root = py.link_root(arch.arch)
        with current_directory(build_dir):
            env = self.get_recipe_env(arch)
            shprint(
                sh.cmake,
                "-DP4A=ON",
                "-DANDROID_ABI=%s" % arch.arch,
                "-DANDROID_STANDALONE_TOOLCHAIN=%s" % self.ctx.ndk_dir,
                "-DANDROID_NATIVE_API_LEVEL=%s" % self.ctx.ndk_api,
                "-DANDROID_EXECUTABLE=%s/tools/android" % env["ANDROID_SDK"],
                "-DCMAKE_TOOLCHAIN_FILE=%s" % join(self.ctx.ndk_dir, "build", "cmake",
                                                   "android.toolchain.cmake"),
                # cv2 must link against our libpython or it fails to dlopen
                "-DCMAKE_SHARED_LINKER_FLAGS=-L%s -lpython%s" % (link_root, py.link_version),
                "-DBUILD_WITH_STANDALONE_TOOLCHAIN=ON",
                "-DBUILD_SHARED_LIBS=ON",
                "-DBUILD_STATIC_LIBS=OFF",
                "-DBUILD_opencv_java=OFF",
                "-DBUILD_opencv_java_bindings_generator=OFF",
                "-DBUILD_opencv_objdetect=ON",    # aruco + QR: what vision/ reads tokens with
                "-DBUILD_TESTS=OFF",
                "-DBUILD_PERF_TESTS=OFF",
                "-DENABLE_TESTING=OFF",
                "-DBUILD_EXAMPLES=OFF",
                "-DBUILD_ANDROID_EXAMPLES=OFF",
                "-DBUILD_ANDROID_PROJECTS=OFF",
                "-DBUILD_OPENCV_PYTHON%s=ON" % major,
                "-DBUILD_OPENCV_PYTHON%s=OFF" % ("2" if major == "3" else "3"),
                "-DOPENCV_SKIP_PYTHON_LOADER=ON",
                "-DOPENCV_PYTHON%s_INSTALL_PATH=%s" % (major, site_packages),
                "-DPYTHON_DEFAULT_EXECUTABLE=%s" % self.ctx.hostpython,
                "-DPYTHON%s_EXECUTABLE=%s" % (major, self.ctx.hostpython),
                "-DPYTHON%s_INCLUDE_PATH=%s" % (major, py.include_root(arch.arch)),
                "-DPYTHON%s_LIBRARIES=%s" % (major, join(link_root,
                                                         "libpython%s.so" % py.link_version)),
                "-DPYTHON%s_NUMPY_INCLUDE_DIRS=%s" % (major, join(site_packages, "numpy",
                                                                  "core", "include")),
                "-DPYTHON%s_PACKAGES_PATH=%s" % (major, site_packages),
                self.get_build_dir(arch.arch),
                _env=env)
            shprint(sh.make, "-j%d" % cpu_count(), "opencv_python%s" % major)
            shprint(sh.cmake, "-DCOMPONENT=python", "-P", "./cmake_install.cmake")
            sh.cp("-a", sh.glob("./lib/%s/lib*.so" % arch.arch), self.ctx.get_libs_dir(arch.arch))


recipe = OpenCVRecipe()
