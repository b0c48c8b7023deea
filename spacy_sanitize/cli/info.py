"""``spacy-sanitize info`` and ``--version``: what the package ships and registers."""
import argparse
import importlib.metadata
import json
from typing import Any

from ..pipeline import shipped_configs
from .options import add_verbose

def cmd_info(args: argparse.Namespace) -> int:
    from spacy.util import registry

    from ..registry import strategies

    # every factory the package declares (entry points), not only those imported so far
    declared = {ep.name for ep in importlib.metadata.entry_points(group="spacy_factories") if ep.value.startswith("spacy_sanitize.")}
    factories = sorted(declared | {name for name in registry.factories.get_all() if name.startswith(("pii_", "risk_", "masker"))})
    print(json.dumps({"pipelines": shipped_configs(), "factories": factories, "strategies": sorted(strategies.get_all())}, indent=2))
    return 0


def package_version() -> str:
    try:
        return importlib.metadata.version("spacy-sanitize")
    except importlib.metadata.PackageNotFoundError:  # a checkout on the path, not installed
        return "unknown (not installed)"


def add_info_subparser(sub: Any) -> None:
    info = sub.add_parser("info", help="list shipped pipelines, registered factories and strategies")
    add_verbose(info)
    info.set_defaults(func=cmd_info)
