import subprocess
import sys

import ragmeter


def test_every_public_name_resolves():
    for name in ragmeter.__all__:
        assert getattr(ragmeter, name) is not None, name


def test_all_is_exactly_the_lazy_table():
    assert set(ragmeter.__all__) == set(ragmeter._LAZY) | {"__version__"}
    assert len(ragmeter.__all__) == len(set(ragmeter.__all__))


def test_unknown_attribute_raises():
    try:
        ragmeter.not_a_thing  # noqa: B018
    except AttributeError as exc:
        assert "not_a_thing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_importing_the_package_stays_light():
    code = (
        "import sys, ragmeter, ragmeter.cli;"
        "heavy = [m for m in ('numpy', 'httpx', 'openai', 'jieba', 'onnxruntime') "
        "if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
