"""Keyed pseudo-random choices: HMAC-SHA256 of a secret over (seed, purpose, text).

Without the secret the choices cannot be recomputed, so the surrogate mapping cannot be
rebuilt from the output; with the same secret and seed they are reproducible.
"""
import hashlib
import hmac
import os
import secrets as _secrets
import warnings
from typing import Optional, Sequence, TypeVar

from ...errors import Warnings


DEFAULT_SECRET_ENV = "SPACY_SANITIZE_SECRET"
T = TypeVar("T")


class KeyedChooser:
    """secret_env (str): environment variable holding the secret. seed (int): a
    public salt; another seed gives another (still consistent) mapping."""

    def __init__(self, secret_env: str = DEFAULT_SECRET_ENV, seed: int = 0) -> None:
        self.secret_env = secret_env
        self.seed = seed
        self._key: Optional[bytes] = None

    def set_secret(self, secret: Optional[str]) -> None:
        self._key = secret.encode("utf-8") if secret else None

    @property
    def key(self) -> bytes:
        if self._key is None:
            value = os.environ.get(self.secret_env)
            if value:
                self._key = value.encode("utf-8")
            else:
                warnings.warn(Warnings.W100.format(env=self.secret_env), stacklevel=2)
                self._key = _secrets.token_bytes(32)
        return self._key

    def number(self, purpose: str, text: str, counter: int = 0) -> int:
        message = f"{self.seed}\x1f{purpose}\x1f{counter}\x1f{text}".encode("utf-8")
        return int.from_bytes(hmac.new(self.key, message, hashlib.sha256).digest()[:8], "big")

    def choose(self, options: Sequence[T], purpose: str, text: str, avoid: Optional[str] = None) -> T:
        """One of ``options`` selected by the HMAC of ``text``; never ``avoid`` when there
        is another option."""
        index = self.number(purpose, text) % len(options)
        for step in range(len(options)):
            option = options[(index + step) % len(options)]
            if avoid is None or str(option).lower() != avoid.lower():
                return option
        return options[index]

    def digits(self, purpose: str, text: str, count: int) -> str:
        out = []
        counter = 0
        while len(out) < count:
            value = self.number(purpose, text, counter)
            out.extend(str(value).zfill(19)[-18:])
            counter += 1
        return "".join(out[:count])
