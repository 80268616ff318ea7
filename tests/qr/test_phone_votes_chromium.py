"""Done-when for "Phones vote": a 23 Knives Exile vote and a Cicero election cast from phones
in a real headless Chromium (Debian's chromium and chromedriver), each phone joining its own
seat with its own seat code, mixed with a vote box's ballot and a tap on the tablet. The phones
are one browser whose cookies are cleared between players: to the server, each is a new phone
(it has no other way to tell phones apart); a phone that comes back is the browser holding
that phone's cookie again. Screenshots go to test-artifacts/phone/."""
from __future__ import annotations

import threading

import pytest

from companion.core.events import Command

from .test_phone_chromium import browser  # noqa: F401  (the fixture)
from .test_phone_votes import KNIVES_7, knives_exile_session, serve

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


def test_five_phones_a_box_and_a_tap_cast_a_knives_exile_vote(browser, tmp_path, phone_artifacts):  # noqa: F811
    journal, session = knives_exile_session(tmp_path)
    bridge, server = serve(session)
    tablet = Tablet(bridge)
    try:
        session.execute(Command("cast_ballot", {"seat": 6, "option": 1}, source="box:06"))
        choices = {"Ann": "Exile", "Bo": "Remain", "Cy": "Exile", "Di": "Exile", "Ed": "Remain"}
        for i, (name, label) in enumerate(choices.items()):
            vote_from_phone(browser, tablet, server, name, label,
                            phone_artifacts if i == 0 else None)
            # the table sees who has voted, never what
            table = session.view("table")["vote"]
            assert name in table["voted"] and "ballots" not in table
        # the tap comes last and reveals the vote for everyone at once
        session.execute(Command("cast_ballot", {"voter": "Gus", "choice": "exile"}, "tablet"))
        browser.refresh()
        tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-status").text == "No vote now")
        browser.save_screenshot(str(phone_artifacts / "phone-vote-after-reveal.png"))
    finally:
        server.stop()
    done = session.view("table")["vote_history"][-1]
    assert done["ballots"] == {"Ann": "exile", "Bo": "remain", "Cy": "exile", "Di": "exile",
                               "Ed": "remain", "Flo": "remain", "Gus": "exile"}
    assert done["sources"]["Flo"] == "box:06" and done["sources"]["Gus"] == "tablet"
    assert len({done["sources"][n] for n in choices}) == 5   # five different phones
    assert len(KNIVES_7["players"]) == 7


def join_seat(browser, tablet, server, name):  # noqa: F811
    """``name``'s own phone opens their seat code's link (a browser with no cookie: a new phone
    to the server); returns the cookie the server issued it, to be that phone again later."""
    browser.delete_all_cookies()
    browser.get(server.seat_url(name))
    tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-title").text == f"{name}'s vote")
    return browser.get_cookie(server.cookie_name)


def as_phone(browser, server, cookie):  # noqa: F811
    """The browser becomes the phone holding ``cookie`` again (and no other) and opens its page."""
    browser.get(f"{server.base_url}/page.css")   # on the server's origin, to set its cookie
    browser.delete_all_cookies()
    browser.add_cookie(cookie)
    browser.get(f"{server.base_url}/")


def shows_recorded(browser, tablet, pick):  # noqa: F811
    """The phone says "Recorded", offers no choice, and says nothing of the ballot."""
    tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-status").text == "Recorded")
    assert browser.find_elements(By.CSS_SELECTOR, "#vote-options button") == []
    assert pick not in browser.find_element(By.ID, "vote-answer").text


def cicero_before_the_ballot(tmp_path, players, after=None):
    """A Cicero game of ``players`` at its next election's debate, the ballot not yet open."""
    from companion.games.cicero import demo
    if after is None:
        from companion.games.cicero.rules import CiceroRules
        from companion.core.journal import Journal
        from companion.core.session import GameSession
        setup = {"players": players, "ages": {p: 30 + i for i, p in enumerate(players)}}
        session = GameSession.start(Journal(tmp_path / "journal.sqlite"), CiceroRules(), setup)
    else:
        session = after
    for _ in range(500):
        v = session.view("table")
        if v["phase"] == "debate":
            return session
        demo.execute_breaking_ties(session.execute, demo.table_move(v))
    raise AssertionError("no election reached")


def test_cicero_elections_from_five_phones_and_from_phones_a_box_and_a_tap(
        browser, tmp_path, phone_artifacts):  # noqa: F811
    """Cicero seats five at most, so "a Cicero election cast from five phones, mixed with a box
    and a tap" cannot mean 5 + 1 + 1 ballots in one election. Both readings are played with the
    same five phones, each joined once: the round-2 election is cast from all five phones; the
    round-3 election from three of them, while Quintus (phone joined) drops his ballot in the
    vote box and Tullia (phone joined) taps hers on the tablet."""
    players = ["Livia", "Marcus", "Octavia", "Quintus", "Tullia"]
    session = cicero_before_the_ballot(tmp_path, players)
    bridge, server = serve(session)
    tablet = Tablet(bridge)
    try:
        # every player joins their seat once with their own phone, before the ballot opens
        phones = {}
        for name in players:
            phones[name] = join_seat(browser, tablet, server, name)
            assert browser.find_element(By.ID, "vote-status").text == "No vote now"
            if name == "Livia":
                browser.save_screenshot(str(phone_artifacts / "phone-join.png"))
        assert set(server.seats()) == set(players) and len(server.devices()) == 5

        # round 2: all five ballots from the five phones
        session.execute(Command("open_ballot", {}))
        first = session.view("table")["vote"]
        picks = {"Livia": "Marcus", "Marcus": "Marcus", "Octavia": "Tullia",
                 "Quintus": "Marcus", "Tullia": "Tullia"}
        for name, pick in picks.items():
            as_phone(browser, server, phones[name])
            tablet.wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#vote-options button"))
            assert browser.find_element(By.ID, "vote-title").text == f"{name}'s vote"
            assert browser.find_element(By.ID, "vote-weight").text == \
                f"Your ballot counts {first['weights'][name]}."
            if name == "Livia":
                browser.save_screenshot(str(phone_artifacts / "phone-vote.png"))
            {b.text: b for b in browser.find_elements(By.CSS_SELECTOR, "#vote-options button")
             }[pick].click()
            shows_recorded(browser, tablet, pick)
            if name == "Livia":
                browser.save_screenshot(str(phone_artifacts / "phone-recorded.png"))
                # the page reloaded: still recorded, its ballot still not shown
                browser.refresh()
                shows_recorded(browser, tablet, pick)
            table = session.view("table")
            if name != players[-1]:   # the tablet shows who has voted, never what
                assert name in table["vote"]["voted"] and "ballots" not in table["vote"]
        assert len(server.devices()) == 5   # the same five phones, no new one
        done = session.view("table")["vote_history"][-1]
        assert done["vote_id"] == first["vote_id"] and done["ballots"] == picks
        assert {done["sources"][n] for n in players} == {
            f"phone:{server.seats()[n]}" for n in players}   # each from its own seat's phone
        assert session.state.elections[2]["princeps"] == "Marcus"

        # round 3: the same phones; Quintus uses the box, Tullia the tablet this time
        cicero_before_the_ballot(tmp_path, players, after=session)
        session.execute(Command("open_ballot", {}))
        second = session.view("table")["vote"]
        assert second["vote_id"] != first["vote_id"]
        box_pick, tap_pick = "Livia", "Marcus"
        session.execute(Command("cast_ballot", {"seat": 4, "option": second["options"].index(box_pick)},
                                source="box:04"))
        as_phone(browser, server, phones["Quintus"])
        # his phone knows his seat voted (so it offers no second ballot), not what the box said
        shows_recorded(browser, tablet, box_pick)
        browser.save_screenshot(str(phone_artifacts / "phone-recorded-by-box.png"))
        picks3 = {"Livia": "Octavia", "Marcus": "Octavia", "Octavia": "Octavia"}
        for name, pick in picks3.items():
            as_phone(browser, server, phones[name])
            tablet.wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#vote-options button"))
            {b.text: b for b in browser.find_elements(By.CSS_SELECTOR, "#vote-options button")
             }[pick].click()
            shows_recorded(browser, tablet, pick)
            table = session.view("table")["vote"]
            assert name in table["voted"] and "ballots" not in table
        # the tap comes last and reveals the election
        session.execute(Command("cast_ballot", {"voter": "Tullia", "choice": tap_pick}, "tablet"))
        as_phone(browser, server, phones["Tullia"])
        tablet.wait(browser, lambda d: d.find_element(By.ID, "vote-status").text == "No vote now")
    finally:
        server.stop()
    done = session.view("table")["vote_history"][-1]
    assert done["vote_id"] == second["vote_id"]
    assert done["ballots"] == {**picks3, "Quintus": box_pick, "Tullia": tap_pick}
    assert done["sources"]["Quintus"] == "box:04" and done["sources"]["Tullia"] == "tablet"
    assert {done["sources"][n] for n in picks3} == {f"phone:{server.seats()[n]}" for n in picks3}
    assert session.state.elections[3]["princeps"] == "Octavia"
