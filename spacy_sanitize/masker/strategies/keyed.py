"""Keyed pseudo-random choices: HMAC-SHA256 of a secret over (seed, purpose, text).

Without the secret the choices cannot be recomputed, so the surrogate mapping cannot be
rebuilt from the output; with the same secret and seed they are reproducible.

Without a secret a random one-time key is drawn, which holds only in the process that drew
it. In a worker process (``nlp.pipe(n_process=2)``: each worker would draw its own, so the
same entity would get different values in documents of different workers) that is error
E115 instead: set the secret.
"""
import hashlib
import hmac
import multiprocessing
import os
import secrets as _secrets
import warnings
from typing import Optional, Sequence, TypeVar

from ...errors import Errors, Warnings


DEFAULT_SECRET_ENV = "SPACY_SANITIZE_SECRET"
T = TypeVar("T")


def in_other_process(home_pid: int) -> bool:
    """Whether this code runs outside the process that built the object (``home_pid``), or
    in a multiprocessing child: one of several workers, whose per-process state (counters,
    one-time keys) its siblings do not share."""
    return os.getpid() != home_pid or multiprocessing.parent_process() is not None


class KeyedChooser:
    """secret_env (str): environment variable holding the secret. seed (int): a
    public salt; another seed gives another (still consistent) mapping. strategy (str):
    the strategy's name, for the messages (``pseudonym`` warns W104, others W100)."""

    def __init__(self, secret_env: str = DEFAULT_SECRET_ENV, seed: int = 0, strategy: str = "surrogate") -> None:
        self.secret_env = secret_env
        self.seed = seed
        self.strategy = strategy
        self._key: Optional[bytes] = None
        self._home_pid = os.getpid()

    def set_secret(self, secret: Optional[str]) -> None:
        self._key = secret.encode("utf-8") if secret else None

    @property
    def key(self) -> bytes:
        if self._key is None:
            value = os.environ.get(self.secret_env)
            if value:
                self._key = value.encode("utf-8")
            elif in_other_process(self._home_pid):
                # fail closed: a one-time key per worker would silently break consistency
                raise ValueError(Errors.E115.format(strategy=self.strategy, env=self.secret_env))
            else:
                if self.strategy == "pseudonym":
                    warnings.warn(Warnings.W104.format(env=self.secret_env), stacklevel=2)
                else:
                    warnings.warn(Warnings.W100.format(env=self.secret_env), stacklevel=2)
                self._key = _secrets.token_bytes(32)
        return self._key

    def hexdigest(self, purpose: str, text: str) -> str:
        """The full HMAC-SHA256 of (seed, purpose, text), 64 hex digits."""
        message = f"{self.seed}\x1f{purpose}\x1f{text}".encode("utf-8")
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

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
