"""Reversibility on request: the mapping from replacements back to the original text.

The mapping holds the ORIGINAL text of every replaced span: it is as sensitive as the
input. It is never written unless ``save_mapping`` is called.

With a ``key`` it is written encrypted: a JSON envelope holding the scrypt parameters, a
random salt and a Fernet token (AES-128-CBC with HMAC-SHA256, from ``cryptography``) of the
plaintext mapping. The key is any string or bytes (a passphrase, or better 32 random
bytes); scrypt stretches it, so a short one is slower to guess, not safe. A wrong key or an
altered file fails the token's HMAC check (E116): nothing is decrypted half-way.
"""
import base64
import os
import stat
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

import srsly
from spacy.tokens import Doc

from ..errors import Errors, Warnings
from ..io import write_file

MAPPING_VERSION = 1
ENCRYPTED_FORMAT = "spacy-sanitize-mapping+fernet"
# scrypt's interactive-login cost (2^14, 8, 1: ~16 MB and tens of ms per key); the envelope
# records it, so raising it later keeps old files readable
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MAX_SCRYPT_N = 2**20  # a crafted envelope must not make load_mapping take gigabytes
MAX_SCRYPT_BYTES = 2**28  # 256 MiB (the settings written take 16 MiB)
MAX_SCRYPT_WORK = 2**21  # n * r * p: 16 times the settings written
Key = Union[str, bytes]


def build_mapping(doc: Doc) -> Dict[str, Any]:
    """The mapping of one processed doc: one entry per replacement, in output order."""
    return {"version": MAPPING_VERSION, "doc_id": doc._.doc_id, "entries": _entries(doc.text, doc._.replacements or [], 0)}


def _entries(text: str, rows: List[List[Any]], offset: int) -> List[Dict[str, Any]]:
    entries: List[Dict[str, Any]] = []
    for start, end, label, entity_id, replacement, out_start, out_end in (row[:7] for row in rows):
        entries.append({
            "out_start": out_start, "out_end": out_end, "replacement": replacement,
            "original": text[start - offset : end - offset], "label": label, "entity_id": entity_id,
        })
    return entries


class MappingCollector:
    """The mappings of records masked piece by piece (``run.pieces.sanitize_pieces``): ``add``
    each piece with its rows in record offsets (``run.pieces.shift_rows``), ``end`` each
    record. ``mappings`` holds one mapping per record, in order (only the replaced
    originals, never the whole text)."""

    def __init__(self) -> None:
        self.mappings: List[Dict[str, Any]] = []
        self._entries: List[Dict[str, Any]] = []

    def add(self, doc: Doc, rows: List[List[Any]], offset: int) -> None:
        self._entries += _entries(doc.text, rows, offset)

    def end(self, doc_id: Optional[str]) -> None:
        self.mappings.append({"version": MAPPING_VERSION, "doc_id": doc_id, "entries": self._entries})
        self._entries = []


def save_mapping(mappings: Union[Dict[str, Any], List[Dict[str, Any]]], path: Union[str, Path], key: Optional[Key] = None) -> None:
    """Write one mapping or a list of them as JSON, encrypted with ``key`` when one is given
    (else warning W101: it holds the originals in clear). The file is readable by its owner
    only (0600): it is created so in the target folder and renamed over ``path`` (an
    existing, wider file is replaced, not rewritten)."""
    content = srsly.json_dumps(mappings, indent=2)
    if key is not None:
        content = srsly.json_dumps(encrypt(content.encode("utf-8"), key))
    write_file(path, content)  # 0600, no name until it is complete: a killed run leaves nothing
    if key is None:
        warnings.warn(Warnings.W101.format(path=path), stacklevel=2)


def load_mapping(path: Union[str, Path], key: Optional[Key] = None, allow_plaintext: bool = False) -> Any:
    """The mapping(s) saved at ``path``; an encrypted file needs its ``key`` (E117 without
    one, E116 with a wrong one). A plaintext file when a key is given is refused (E121: it may
    have been swapped in for the encrypted one), or with ``allow_plaintext`` read with W106."""
    data = srsly.read_json(path)
    if not is_encrypted(data):
        if key is not None and not allow_plaintext:
            raise ValueError(Errors.E121.format(path=path))
        if key is not None:
            warnings.warn(Warnings.W106.format(path=path), stacklevel=2)
        return data
    if key is None:
        raise ValueError(Errors.E117.format(problem=f"the mapping '{path}' is encrypted and no key was given"))
    return srsly.json_loads(decrypt(data, key, path).decode("utf-8"))


def is_encrypted(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == ENCRYPTED_FORMAT


def _fernet(key: Key, salt: bytes, n: int, r: int, p: int) -> Any:
    try:
        from cryptography.fernet import Fernet
        from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
    except ImportError:
        raise ValueError(Errors.E118) from None
    material = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if not material:
        raise ValueError(Errors.E117.format(problem="the key is empty"))
    derived = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(material)
    return Fernet(base64.urlsafe_b64encode(derived))


def encrypt(plaintext: bytes, key: Key) -> Dict[str, Any]:
    """The encrypted envelope of ``plaintext`` (JSON-able)."""
    salt = os.urandom(16)
    token = _fernet(key, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P).encrypt(plaintext)
    return {
        "format": ENCRYPTED_FORMAT, "version": MAPPING_VERSION,
        "kdf": {"name": "scrypt", "salt": base64.b64encode(salt).decode("ascii"), "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P},
        "token": token.decode("ascii"),
    }


def decrypt(envelope: Dict[str, Any], key: Key, path: Union[str, Path] = "<mapping>") -> bytes:
    """The plaintext of an envelope written by ``encrypt`` (E116: wrong key or altered)."""
    try:
        kdf = envelope["kdf"]
        n, r, p = int(kdf["n"]), int(kdf["r"]), int(kdf["p"])
        # bounded before any work: scrypt takes 128 * n * r bytes and time in n * r * p
        if (kdf.get("name") != "scrypt" or not (1 < n <= MAX_SCRYPT_N and 0 < r <= 64 and 0 < p <= 16)
                or 128 * n * r > MAX_SCRYPT_BYTES or n * r * p > MAX_SCRYPT_WORK):
            raise ValueError("unsupported key derivation")
        salt = base64.b64decode(kdf["salt"])
        token = str(envelope["token"]).encode("ascii")
    except (KeyError, TypeError, ValueError):
        raise ValueError(Errors.E116.format(path=path)) from None
    fernet = _fernet(key, salt, n, r, p)
    try:
        return fernet.decrypt(token)
    except Exception:  # cryptography's InvalidToken: wrong key, altered or truncated token
        raise ValueError(Errors.E116.format(path=path)) from None


def read_key(env: Optional[str] = None, path: Optional[Union[str, Path]] = None) -> Optional[bytes]:
    """The mapping key from the environment variable ``env`` or the file ``path`` (which
    must be readable by its owner only, like an ssh key); None when neither is given.
    Errors name where the key was looked for, never the key."""
    if env is not None and path is not None:
        raise ValueError(Errors.E117.format(problem="give the key from an environment variable or from a file, not both"))
    if env is not None:
        value = os.environ.get(env, "")
        if not value.strip():
            raise ValueError(Errors.E117.format(problem=f"the environment variable {env} is unset or empty"))
        return value.strip().encode("utf-8")
    if path is None:
        return None
    try:
        mode = os.stat(path).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ValueError(Errors.E117.format(problem=f"the key file '{path}' is readable by others (mode {stat.S_IMODE(mode):o}); chmod 600 it"))
        value_bytes = Path(path).read_bytes().strip()
    except OSError as err:
        raise ValueError(Errors.E117.format(problem=f"cannot read the key file '{path}' ({err.strerror})")) from None
    if not value_bytes:
        raise ValueError(Errors.E117.format(problem=f"the key file '{path}' is empty"))
    return value_bytes


def restore(sanitized: str, mapping: Dict[str, Any]) -> str:
    """The original text from the sanitized text and its mapping. Each replacement is
    expected at its recorded output offsets; if the text was edited, it is searched for
    after the previous one (E108 when it cannot be found)."""
    if not isinstance(mapping, dict) or mapping.get("version") != MAPPING_VERSION:
        raise ValueError(Errors.E107.format(version=mapping.get("version") if isinstance(mapping, dict) else None))
    pieces: List[str] = []
    cursor = 0
    for index, entry in enumerate(mapping["entries"]):
        replacement = entry["replacement"]
        start = entry["out_start"]
        if not (start >= cursor and sanitized[start : start + len(replacement)] == replacement):
            start = sanitized.find(replacement, cursor) if replacement else -1
            if start < 0:
                raise ValueError(Errors.E108.format(index=index, length=len(replacement), start=entry["out_start"], end=entry["out_end"]))
        pieces.append(sanitized[cursor:start])
        pieces.append(entry["original"])
        cursor = start + len(replacement)
    pieces.append(sanitized[cursor:])
    return "".join(pieces)
