"""Markdown table (seed 000 layout) of benchmarks/results/risk_llm_eval.json.

    python benchmarks/quality/risk_llm_table.py [PATH]
"""
import argparse

import srsly

COLUMNS = ("P", "P_w", "R_all", "F1", "R_ent", "R_direct", "R_quasi")


def main(path: str = "benchmarks/results/risk_llm_eval.json") -> None:
    rows = srsly.read_json(path)["rows"]
    print("| spans | scorer | system | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|" + "---|" * len(COLUMNS))
    for key in sorted(rows, key=lambda k: (k.split("/")[0] != "gold", k.count("/"), k)):
        parts = key.split("/")
        cond, scorer, system = (parts[0], "-", parts[1]) if len(parts) == 2 else parts
        print(f"| {cond} | {scorer} | {system} | " + " | ".join(f"{rows[key][c]:.3f}" for c in COLUMNS) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", default="benchmarks/results/risk_llm_eval.json", help="a results file of risk_llm_eval.py")
    main(parser.parse_args().path)
