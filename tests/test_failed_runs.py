"""A run that fails leaves no file with original text behind (issue #36 C1, C2, C4; #39 item 3):
a full disk left the partial temporary output (the disk stayed full), SIGTERM left it too."""
import errno
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


def test_sigterm_mid_run_removes_the_temporary_output(tmp_path):
    source, target = tmp_path / "big.txt", tmp_path / "out.txt"
    source.write_text("Anna Berg lives in Oslo and writes to anna.berg@example.org.\n" * 40000, encoding="utf8")
    process = subprocess.Popen([sys.executable, "-m", "spacy_sanitize", "sanitize", str(source), "-o", str(target), "-q", "--pipeline", "strict"],
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")] and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be interrupted"
    time.sleep(1.0)  # mid-run: pieces written to the temporary file
    process.send_signal(signal.SIGTERM)
    err = process.communicate(timeout=120)[1]
    assert process.returncode == 128 + signal.SIGTERM
    assert "interrupted" in err and str(target) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt"]
