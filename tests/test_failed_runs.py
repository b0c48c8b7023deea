"""A run that fails leaves no file with original text behind (issue #36 C1, C2, C4; #39 item 3):
a full disk left the partial temporary output (the disk stayed full), SIGTERM left it too, and so
did SIGKILL (no handler runs: the output has no name until it is complete)."""
import errno
import os
import signal
import subprocess
import sys
import time

import pytest

from spacy_sanitize.io import Output


class FullDisk:
    """The temporary file's stream as a full disk makes it: its buffered write fails on close."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self.stream.write(text)

    def flush(self):
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self):
        self.stream.close()
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("ok", [True, False])
def test_a_full_disk_leaves_no_temporary_file_and_keeps_the_old_output(tmp_path, ok):
    target = tmp_path / "out.txt"
    target.write_text("old output\n")
    out = Output(str(target))
    out.stream = FullDisk(out.stream)
    out.write("Anna Berg lives in Oslo.\n")
    with pytest.raises(OSError, match="No space left"):
        out.close(ok)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"] and target.read_text() == "old output\n"


def _writing_run(tmp_path):
    """A sanitize run of a large file, once it writes its output (an open file in ``tmp_path``:
    unnamed on Linux, a hidden .tmp elsewhere)."""
    source, target = tmp_path / "big.txt", tmp_path / "out.txt"
    source.write_text("Anna Berg lives in Oslo and writes to anna.berg@example.org.\n" * 40000, encoding="utf8")
    process = subprocess.Popen([sys.executable, "-m", "spacy_sanitize", "sanitize", str(source), "-o", str(target), "-q", "--pipeline", "strict"],
                               stderr=subprocess.PIPE, text=True)

    def writing():
        try:
            links = [os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{process.pid}/fd")]
        except OSError:
            links = []
        return any(link.startswith(str(tmp_path)) and "big.txt" not in link for link in links) or any(
            p.name.endswith(".tmp") for p in tmp_path.iterdir())

    deadline = time.monotonic() + 120
    while not writing() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    time.sleep(1.0)  # mid-run: pieces written to the temporary file
    return process, target


def test_sigterm_mid_run_removes_the_temporary_output(tmp_path):
    process, target = _writing_run(tmp_path)
    process.send_signal(signal.SIGTERM)
    err = process.communicate(timeout=120)[1]
    assert process.returncode == 128 + signal.SIGTERM
    assert "interrupted" in err and str(target) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="an unnamed file (O_TMPFILE) is Linux's; elsewhere a kill leaves the .tmp")
def test_a_killed_run_leaves_no_file_with_its_text(tmp_path):
    # SIGKILL (or the kernel's out-of-memory killer) runs no handler: the output has no name until it is complete
    process, _ = _writing_run(tmp_path)
    process.kill()
    process.communicate(timeout=120)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]


def test_a_committed_file_is_complete_and_has_its_mode(tmp_path):
    from spacy_sanitize.io import PendingFile

    pending = PendingFile(tmp_path / "out.txt")
    os.write(pending.fd, b"all of it\n")
    assert list(tmp_path.iterdir()) == [] or sys.platform != "linux"  # nothing visible before commit
    pending.commit(0o640)
    os.close(pending.fd)
    pending.discard()
    assert (tmp_path / "out.txt").read_bytes() == b"all of it\n"
    assert (tmp_path / "out.txt").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
