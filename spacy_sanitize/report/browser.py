"""A headless Chromium for the report's browser tests and its screenshots: Debian's
``chromium`` and ``chromium-driver`` driven by selenium (the ``[report]`` extra), never a
downloaded browser build (selenium-manager stays offline)."""
import os
import shutil
from typing import Any, Optional, Tuple

from ..errors import Errors

BROWSERS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
DRIVERS = ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")


def _first(paths: Tuple[str, ...], name: str) -> Optional[str]:
    for path in paths:
        if os.access(path, os.X_OK):
            return path
    return shutil.which(name)


def find_chromium() -> Tuple[Optional[str], Optional[str]]:
    """The browser and driver executables (``CHROMIUM``/``CHROMEDRIVER`` override), or None."""
    browser = os.environ.get("CHROMIUM") or _first(BROWSERS, "chromium")
    driver = os.environ.get("CHROMEDRIVER") or _first(DRIVERS, "chromedriver")
    return browser, driver


def missing() -> Optional[str]:
    """Why no headless browser can start here (None when one can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'spacy-sanitize[report]')"
    browser, driver = find_chromium()
    if not browser or not driver:
        return "Debian's chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
    return None


def headless_chromium(width: int = 1400, height: int = 1000) -> Any:
    """A selenium Chrome driver on the local Chromium, headless, window ``width`` x ``height``."""
    reason = missing()
    if reason:
        raise RuntimeError(Errors.E903.format(reason=reason))
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # selenium-manager never downloads a browser or driver
    browser, driver = find_chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = str(browser)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=str(driver)), options=options)
