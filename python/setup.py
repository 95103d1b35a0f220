"""The wheel's tag and layout: py3-none-manylinux_<glibc floor>_<arch>, its files in platlib.

The package holds no Python extension (any Python 3 runs it: py3, none) but ELF files for one platform, which
belong in platlib (Root-Is-Purelib: false). A distribution that says it has extension modules is laid out that
way; setuptools would then tag it cpXY-cpXY, so the tag is given here. plat_name comes from setup.cfg, written by
python/build_wheel.cmake from the floor tests/portability pins.
"""

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


class PlatformDistribution(Distribution):
    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        return "py3", "none", self.plat_name.replace("-", "_").replace(".", "_")


setup(distclass=PlatformDistribution, cmdclass={"bdist_wheel": PlatformWheel})
