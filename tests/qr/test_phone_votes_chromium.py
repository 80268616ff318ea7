"""Done-when for "Phones vote": a 23 Knives Exile vote and a Cicero election cast from phones
in a real headless Chromium (Debian's chromium and chromedriver), each phone joining its own
seat with its own seat code, mixed with a vote box's ballot and a tap on the tablet. The phones
are one browser whose cookies are cleared between players: to the server, each is a new phone
(it has no other way to tell phones apart). Screenshots go to test-artifacts/qr/."""
from __future__ import annotations

import threading

import pytest

from companion.core.events import Command

from .test_phone_chromium import browser  # noqa: F401  (the fixture)
from .test_phone_votes import KNIVES_7, cicero_election_session, knives_exile_session, serve

pytestmark = pytest.mark.slow

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


class Tablet:
    """The tablet's main thread: answers the server's questions while the browser runs."""

    def __init__(self, bridge):
        self.bridge, self.stop = bridge, threading.Event()
        self.thread = threading.current_thread()

    def wait(self, drv, condition, timeout=60):
        def cond(d):
            self.bridge.drain()
            return condition(d)
        return WebDriverWait(drv, timeout, poll_frequency=0.05).until(cond)


def vote_from_phone(browser, tablet, server, name, label, artifacts=None):  # noqa: F811
    browser.delete_all_cookies()
    browser.get(server.seat_url(name))
    # the page's first refresh asks the tablet: answer while waiting for the choices
    tablet.wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#vote-options button"))
    assert browser.find_element(By.ID, "vote-title").text == f"{name}'s vote"
    assert not browser.find_element(By.ID, "curia-area").is_displayed()
    buttons = {b.text: b for b in browser.find_elements(By.CSS_SELECTOR, "#vote-options button")}
    if artifacts is not None:
        browser.save_screenshot(str(artifacts / "phone-vote-choices.png"))
    buttons[label].click()
    tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-status").text == "Recorded")
    # the choice left the screen; nothing on the page says what it was
    assert browser.find_elements(By.CSS_SELECTOR, "#vote-options button") == []
    said = browser.find_element(By.ID, "vote-answer").text
    assert said.startswith("Recorded") and label not in said
    if artifacts is not None:
        browser.save_screenshot(str(artifacts / "phone-vote-recorded.png"))


def test_five_phones_a_box_and_a_tap_cast_a_knives_exile_vote(browser, tmp_path, artifacts):  # noqa: F811
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    tablet = Tablet(bridge)
    try:
        session.execute(Command("cast_ballot", {"seat": 6, "option": 1}, source="box:06"))
        choices = {"Ann": "Exile", "Bo": "Remain", "Cy": "Exile", "Di": "Exile", "Ed": "Remain"}
        for i, (name, label) in enumerate(choices.items()):
            vote_from_phone(browser, tablet, server, name, label,
                            artifacts if i == 0 else None)
            # the table sees who has voted, never what
            table = session.view("table")["vote"]
            assert name in table["voted"] and "ballots" not in table
        # the tap comes last and reveals the vote for everyone at once
        session.execute(Command("cast_ballot", {"voter": "Gus", "choice": "exile"}, "tablet"))
        browser.refresh()
        tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-status").text == "No vote now")
        browser.save_screenshot(str(artifacts / "phone-vote-after-reveal.png"))
    finally:
        server.stop()
    done = session.view("table")["vote_history"][-1]
    assert done["ballots"] == {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile",
                               "Ed": "remain", "Flo": "remain", "Gus": "exile"}
    assert done["sources"]["Flo"] == "box:06" and done["sources"]["Gus"] == "tablet"
    assert len({done["sources"][n] for n in choices}) == 5   # five different phones
    assert len(KNIVES_7["players"]) == 7


def test_phones_a_box_and_a_tap_elect_the_princeps_in_cicero(browser, tmp_path, artifacts):  # noqa: F811
    # Cicero seats five at most: three phones, a box and a tap fill the five seats
    players = ["Livia", "Marcus", "Octavia", "Quintus", "Tullia"]
    journal, session = cicero_election_session(tmp_path, players)
    bridge, server = serve(session)
    tablet = Tablet(bridge)
    vote = session.view("table")["vote"]
    try:
        session.execute(Command("cast_ballot", {"voter": "Tullia", "choice": "Livia"}, "tablet"))
        session.execute(Command("cast_ballot", {"seat": 4, "option": 1}, source="box:04"))
        for name in players[:3]:
            vote_from_phone(browser, tablet, server, name, "Marcus")
        browser.save_screenshot(str(artifacts / "phone-vote-cicero.png"))
    finally:
        server.stop()
    done = session.view("table")["vote_history"][-1]
    assert done["ballots"] == {"Livia": "Marcus", "Marcus": "Marcus", "Octavia": "Marcus",
                               "Quintus": vote["options"][1], "Tullia": "Livia"}
    assert done["counts"]["Marcus"] >= sum(vote["weights"][p] for p in players[:3])
