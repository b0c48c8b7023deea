from pathlib import Path

from weasel.util import load_project_config

ROOT = Path(__file__).resolve().parents[1]


def test_project_commands_are_well_formed():
    config = load_project_config(ROOT)
    names = [c["name"] for c in config["commands"]]
    assert len(names) == len(set(names))
    for workflow, steps in config.get("workflows", {}).items():
        assert set(steps) <= set(names), workflow
    for command in config["commands"]:
        for key in ("deps", "outputs"):
            for path in command.get(key, []):
                # Two list items that both start with ${vars...} can be joined by the config
                # interpolation into one "a, b" path that never exists.
                assert ", " not in path, (command["name"], key, path)
