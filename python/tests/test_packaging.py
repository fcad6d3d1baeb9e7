"""What `pip install .` puts in place (docs/install.md): the `loom` command
(a console script that runs the binary shipped in the package), the license,
and one version everywhere. The wheel as a whole — auditwheel's manylinux
tag, an install into a fresh venv — is scripts/check_wheel.sh's job: it
builds from scratch, too slow for this suite.
"""

import importlib.metadata as metadata
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO_ROOT

import loom
from loom import _cli


@pytest.fixture
def bundled_binary():
    path = _cli.binary_path()
    if not path.exists():
        pytest.skip(f"{path} is absent: this loom was built without the command "
                    "(LOOM_BUILD_TOOLS=OFF)")
    return path


def test_loom_command_is_the_packages_console_script():
    entry_points = metadata.distribution("loom").entry_points
    scripts = [ep for ep in entry_points if ep.group == "console_scripts"]
    assert [(ep.name, ep.value) for ep in scripts] == [("loom", "loom._cli:main")]


def test_cli_shim_runs_the_bundled_binary_with_the_same_arguments(bundled_binary):
    result = subprocess.run(
        [sys.executable, "-c", "from loom import _cli; _cli.main()", "--help"],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: loom")


def test_installed_loom_script_runs_the_bundled_binary(bundled_binary):
    script = Path(sysconfig.get_path("scripts")) / "loom"
    if not script.exists():
        pytest.skip(f"no {script}: the package was installed elsewhere (pip --user?)")
    result = subprocess.run([str(script), "kernels", "--json"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.lstrip().startswith("{")


def test_missing_binary_is_an_error_that_says_why(monkeypatch, tmp_path):
    monkeypatch.setattr(_cli, "binary_path", lambda: tmp_path / "bin" / "loom")
    with pytest.raises(SystemExit) as exit_info:
        _cli.main()
    assert "LOOM_BUILD_TOOLS=OFF" in str(exit_info.value.code)


def test_license_is_apache_2_in_the_checkout_and_in_the_package_metadata():
    text = (REPO_ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    dist = metadata.distribution("loom")
    assert dist.metadata["License-Expression"] == "Apache-2.0"
    shipped = [f for f in dist.files or () if f.name == "LICENSE"]
    assert len(shipped) == 1 and shipped[0].read_text() == text


def test_version_comes_from_cmake_and_agrees_everywhere():
    cmake = (REPO_ROOT / "CMakeLists.txt").read_text()
    (cmake_version,) = re.findall(r"^project\(loom VERSION ([0-9.]+)", cmake, re.MULTILINE)
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    # pyproject.toml reads it from CMakeLists.txt instead of stating its own.
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert not re.search(r"^version\s*=", pyproject, re.MULTILINE)
    assert metadata.version("loom") == cmake_version
    assert loom.__version__ == cmake_version
