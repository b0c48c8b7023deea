"""``spacy-sanitize quantize IN_DIR OUT_DIR``: convert a saved masked LM to the shipped int8 format."""
import argparse
from pathlib import Path
from typing import List, Optional

from ..lm.quantized import save_int8


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="spacy-sanitize quantize", description=__doc__)
    parser.add_argument("source", help="directory of a saved transformers masked LM")
    parser.add_argument("output", help="directory to write config, tokenizer and model.int8.safetensors")
    args = parser.parse_args(argv)
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    model = AutoModelForMaskedLM.from_pretrained(args.source).float()
    save_int8(model, AutoTokenizer.from_pretrained(args.source), args.output)
    size = sum(f.stat().st_size for f in Path(args.output).iterdir() if f.is_file())
    print(f"{args.output}: {size / 1e6:.1f} MB")
    return 0
