"""The playground in a real browser: Debian's headless Chromium driven by selenium.

The HTTP face runs in-process on loopback over the real pipeline of test_faces_http.py
(Oxigraph fixture graph, its bank, recorded plans). The browser opens ``/``, types a
question, presses Enter, waits for the answers table and reads its rows, then saves a
screenshot under the test's temp folder (``NL2SPARQL_SCREENSHOT=PATH`` saves it there too:
that is how docs/faces-playground.png is made). Nothing is downloaded: Chromium and its
driver are Debian's (``apt-get install chromium chromium-driver``, done by scripts/install.sh
when it runs as root); without them the test skips.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_faces_http import pipeline, running  # noqa: F401 - the module-scoped pipeline fixture

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip("no Debian chromium / chromium-driver (scripts/install.sh installs them as root)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument("--window-size=420,1100")  # a phone's width
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_a_question_typed_in_the_page_shows_its_answers(browser: Any, pipeline: Any, tmp_path: Path) -> None:  # noqa: F811
    with running(pipeline) as url:
        browser.get(f"{url}/")
        wait = WebDriverWait(browser, 60)
        wait.until(lambda b: b.find_elements(By.CSS_SELECTOR, "#dataset option"))
        question = browser.find_element(By.ID, "question")
        assert browser.switch_to.active_element == question  # keyboard-first: the focus is there
        question.send_keys("Which films did Cy Quill act in?", Keys.ENTER)
        wait.until(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, "#answers tbody tr")))
        rows = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "#answers tbody tr")
        ]
        assert sorted(name for _, name, _ in rows) == ["Ember Road", "Glass Harbor", "Tidewater"]
        assert {row[2] for row in rows} == {"m.0f_ember", "m.0f_glass", "m.0f_tide"}
        assert "people.person" not in browser.find_element(By.ID, "sparql").text  # the films query
        assert browser.find_elements(By.CSS_SELECTOR, "#sparql .kw")  # highlighted
        assert "Cy Quill" in browser.find_element(By.ID, "entities").text
        assert browser.find_element(By.ID, "plan").text.startswith("Type: simple")
        stages = [
            row.find_element(By.TAG_NAME, "td").text
            for row in browser.find_elements(By.CSS_SELECTOR, "#trace tbody tr")
        ]
        assert stages[:6] == ["linked", "planned", "recalled", "compiled", "executed", "result"]
        assert browser.find_element(By.ID, "error").is_displayed() is False
        shot = tmp_path / "playground.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        if os.environ.get("NL2SPARQL_SCREENSHOT"):
            shutil.copy(shot, os.environ["NL2SPARQL_SCREENSHOT"])

        question.clear()
        question.send_keys("Who is the mother of Cy Quill?", Keys.ENTER)  # no plan recorded for it
        wait.until(expected_conditions.visibility_of_element_located((By.ID, "error")))
        assert "planning failed" in browser.find_element(By.ID, "error").text
