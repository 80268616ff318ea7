"""Issue 32, the table on every player's phone, in real headless Chromium: five phones (five
browsers, each its own cookie jar, as five devices are; shared by every test here), each
seated with its own seat code, follow a whole five-player 23 Knives game and a Cicero round on
the real phone server, fed by the same :class:`~companion.phone.source.PhoneSource` the app
polls on its main thread (a real session on a real SQLite journal; countdowns started where the
app starts them). After each of the table's moves, every phone shows the board the tablet's
view shows, its own turn and no one else's, the running timers, the vote (each phone casts its
seat's ballot), the public history and the result, in its own language (en, fr, de).

Timing is not asserted (the machine is shared); each phone records when its view came in
(``data-table-shown-at``), and the test prints how long after the tablet's move that was
(benchmarks/phone_table.py prints the same figures). Screenshots at 360x740 and 412x915 go
to test-artifacts/phone/table-*.png."""
from __future__ import annotations

import random
import re
import time

import pytest

from companion.core.clock import SYSTEM_CLOCK
from companion.core.commands import legal_commands
from companion.core.journal import Journal
from companion.core.session import GameSession
from companion.core.timers import Countdown
from companion.phone.httpd import CappedServer
from companion.phone.server import RateLimiter, option_words
from companion.phone.source import PhoneSource
from companion.phone.words import say

from .phone_games import FIVE, KNIVES_5, PHONE_VOTES, _votes, knives_five
from .test_phone_chromium import make_browser

pytestmark = pytest.mark.slow

from selenium.webdriver.common.by import By  # noqa: E402

LANGS = ["en", "fr", "de", "en", "fr"]
SIZES = [(360, 740), (412, 915)]

READ = """
const q = (s) => document.querySelector(s);
const all = (s) => [...document.querySelectorAll(s)];
return {version: document.documentElement.dataset.tableVersion || "0",
        shownAt: Number(document.documentElement.dataset.tableShownAt || 0),
        game: q('#table-game').textContent, prompt: q('#table-prompt').textContent,
        asks: q('#table-asks').textContent,
        board: all('#table-board dt').map((dt) => [dt.textContent, dt.nextElementSibling.textContent]),
        timers: q('#table-timers-box').hidden ? [] : all('#table-timers li').map((li) => li.textContent),
        history: q('#table-history-box').hidden ? [] : all('#table-history li').map((li) => li.textContent),
        result: q('#table-result-box').hidden ? null : q('#table-result').textContent,
        buttons: all('#vote-options button').map((b) => b.textContent),
        voteStatus: q('#vote-status').textContent};
"""


@pytest.fixture(scope="module")
def phones(tmp_path_factory):
    drivers = []
    try:
        for i, lang in enumerate(LANGS):
            drivers.append(make_browser(tmp_path_factory.mktemp(f"phone{i}"),
                                        extra=(f"--lang={lang}", f"--accept-lang={lang}")))
        yield drivers
    finally:
        for d in drivers:
            d.quit()


class Tablet:
    """A real session and journal, and the app's phone source polled as its main thread does."""

    def __init__(self, tmp_path, rules, setup, timers, run=None):
        self.session = s = GameSession.start(Journal(tmp_path / "journal.sqlite"), rules, setup)
        self.countdowns: dict[str, Countdown] = {}
        self.timers = timers    # view -> {name: seconds}: the countdowns the app runs now
        self.source = PhoneSource(bytes(16), execute=s.execute, state=lambda: s.state,
                                  rules=lambda: s.rules, vote=lambda: s.view("table").get("vote"),
                                  timers=lambda: list(self.countdowns.values()), host="127.0.0.1",
                                  rate=RateLimiter(burst=10_000, per_second=1_000),
                                  decoder=lambda data: [])
        self.source.start(None)
        self.server = self.source.server
        self.latencies: list[float] = []
        self.run = run or s.execute   # how the table's command is entered (Cicero: ties broken)

    def poll(self):
        wanted = self.timers(self.session.view("table"))
        self.countdowns = {n: self.countdowns.get(n) or Countdown(sec, SYSTEM_CLOCK, name=n)
                           for n, sec in wanted.items()}
        self.source.poll()

    def wait(self, cond, timeout=30.0, what="the phones"):
        end = time.monotonic() + timeout
        while True:
            self.poll()
            got = cond()
            if got:
                return got
            if time.monotonic() > end:
                raise AssertionError(f"{what}: not within {timeout} s")
            time.sleep(0.02)

    def execute(self, commands, phones):
        """The table's move; waits until every phone shows its new view (and notes how long
        after the move each one got it)."""
        t0 = time.time()
        for c in commands:
            self.run(c)
        self.poll()
        for i, drv in enumerate(phones):
            version = self.server.table.current(FIVE[i], LANGS[i])[0]
            seen = self.wait(lambda: (r := drv.execute_script(READ))["version"] == str(version) and r,
                             what=f"{FIVE[i]}'s phone")
            if seen["shownAt"] / 1000 >= t0:
                self.latencies.append(seen["shownAt"] / 1000 - t0)

    def report(self, what):
        lat = sorted(self.latencies)
        print(f"\n{what}, 5 phones: {len(lat)} views; after the tablet's move: median "
              f"{lat[len(lat) // 2]:.3f} s, max {lat[-1]:.3f} s (loaded machine)")

    def stop(self):
        self.source.stop()
        self.session.journal.close()


def seat_phones(tablet, phones):
    for i, drv in enumerate(phones):
        drv.get(tablet.server.seat_url(FIVE[i]))
        tablet.wait(lambda: drv.execute_script(READ)["version"] != "0", what=f"{FIVE[i]} seated")


def check_all(tablet, phones, expected, turn_of):
    """Every phone shows ``expected(view, lang)`` (values the tablet's table view shows), its own
    turn and nobody else's."""
    view = tablet.session.view("table")
    turn = turn_of(view)
    voting = bool(view.get("vote") and not view["vote"].get("revealed"))
    for i, drv in enumerate(phones):
        r = drv.execute_script(READ)
        values = [v for _, v in r["board"]]
        for want in expected(view, LANGS[i]):
            assert any(want in v for v in values), f"{FIVE[i]} ({LANGS[i]}): {want!r} not in {r['board']}"
        mine = say(LANGS[i], "phone.page.your_turn")
        if turn == FIVE[i] and not voting:
            assert r["asks"].startswith(mine), (FIVE[i], r)
        else:
            assert not r["asks"].startswith(mine), (FIVE[i], r)
        timers = tablet.countdowns
        assert len(r["timers"]) == len(timers), (r["timers"], timers)


def vote_on_phones(tablet, phones, choices):
    """Each phone casts its seat's ballot, as its player would: tapping the choice's button."""
    for i, drv in enumerate(phones):
        label = option_words(choices[FIVE[i]], LANGS[i])
        recorded, not_sent = say(LANGS[i], "phone.page.recorded"), say(LANGS[i], "phone.page.not_sent")
        no_vote = say(LANGS[i], "phone.page.no_vote")
        # A phone the tablet did not answer in time (a loaded machine) says "Not sent: tap your
        # choice again" and shows the choices again: the player taps again, at most twice more.
        # The last ballot may close the vote before the test reads "Recorded": the page then says
        # "No vote now", and the tablet's journal must hold that ballot.
        for _attempt in range(3):
            buttons = tablet.wait(lambda: [b for b in drv.find_elements(By.CSS_SELECTOR, "#vote-options button")
                                           if b.text == label], what=f"{FIVE[i]}'s vote buttons")
            buttons[0].click()
            status = tablet.wait(lambda: (lambda text: (text in (recorded, not_sent)
                                                        or (text == no_vote and ballot_in(tablet, FIVE[i]))) and text)(
                                     drv.find_element(By.ID, "vote-status").text),
                                 timeout=90.0, what=f"{FIVE[i]}'s ballot")
            if status != not_sent:
                break
        assert status == recorded or (status == no_vote and ballot_in(tablet, FIVE[i])), \
            (FIVE[i], status, drv.find_element(By.ID, "vote-detail").text)


def ballot_in(tablet, name):
    """The tablet has ``name``'s ballot: in the open vote, or in the one just revealed."""
    view = tablet.session.view("table")
    if name in ((view.get("vote") or {}).get("voted") or []):
        return True
    history = view.get("vote_history") or []
    return bool(history) and name in (history[-1].get("ballots") or {})


def shots(drv, name, artifacts):
    for w, h in SIZES:
        drv.set_window_size(w, h)
        drv.save_screenshot(str(artifacts / f"table-{name}-{w}x{h}.png"))
    drv.set_window_size(420, 900)


def knives_board(view, lang):
    k = view["kalends"]
    out = [view["tribune"], say(lang, "phone.table.dagger_curia") if k["dagger"] >= k["curia_space"]
           else say(lang, "phone.table.dagger_on", space=k["dagger"], spaces=k["spaces"],
                    curia=k["curia_space"]),
           say(lang, "phone.table.forum_count", count=view["forum"]["count"], cards=view["forum"]["cards"]),
           str(view["curia"]["count"]), str(view["round"])]
    if view.get("turn"):
        out.append(view["turn"]["player"])
    return out


def knives_timers(view):
    if view["phase"] == "exile_called" and (view.get("exile") or {}).get("bribe_seconds"):
        return {"knives23.bribe": view["exile"]["bribe_seconds"]}
    return {}


@pytest.fixture
def wide_loopback(monkeypatch):
    # five phones on one loopback address stand in for five devices on five addresses
    monkeypatch.setattr(CappedServer, "PER_ADDRESS", CappedServer.MAX_CONNECTIONS)


def test_five_phones_follow_a_whole_23_knives_game(phones, tmp_path, phone_artifacts, wide_loopback):
    from companion.games.knives23.rules import Knives23Rules
    tablet = Tablet(tmp_path, Knives23Rules(), KNIVES_5, knives_timers)
    turn_of = lambda v: (v.get("turn") or {}).get("player")  # noqa: E731
    try:
        seat_phones(tablet, phones)
        shots(phones[0], "knives23-setup", phone_artifacts)
        voted = timer_seen = False
        for step in knives_five():
            if isinstance(step, str):   # a vote: every phone casts its ballot
                vote_on_phones(tablet, phones, PHONE_VOTES[step])
                tablet.execute([], phones)
                voted = True
                continue
            if step[0].kind == "eyes_closed":
                tablet.execute(step, phones)
                pages = [d.page_source for d in phones]
                assert all(say(LANGS[i], "phone.table.eyes_closed") in d.execute_script(READ)["prompt"]
                           for i, d in enumerate(phones))
                assert all(d.execute_script(READ)["board"] == [] for d in phones)
                shots(phones[0], "knives23-eyes-closed", phone_artifacts)
                for _ in range(60):      # three seconds: the pages' own polls and timers run
                    tablet.poll()
                    time.sleep(0.05)
                assert [d.page_source for d in phones] == pages, "a page changed with eyes closed"
                continue
            tablet.execute(step, phones)
            check_all(tablet, phones, knives_board, turn_of)
            if step[-1].kind == "call_exile":
                r = phones[0].execute_script(READ)
                timer_seen = bool(r["timers"]) and re.fullmatch(r"Bribe (1:00|0:[0-5]\d)", r["timers"][0])
                shots(phones[0], "knives23-exile-vote", phone_artifacts)
            if step[0].kind == "move" and step[0].data["location"] == "gardens" and voted:
                shots(phones[1], "knives23-turn-fr", phone_artifacts)
        assert timer_seen, "the bribe's countdown was not on the phone during the Exile vote"
        outcome = tablet.session.rules.outcome(tablet.session.state)
        assert outcome is not None
        for i, drv in enumerate(phones):
            r = drv.execute_script(READ)
            won = FIVE[i] in outcome["winners"]
            assert r["result"] and r["result"].startswith(
                say(LANGS[i], "phone.page.you_won" if won else "phone.page.you_lost")), r
            # the public history: the three Issues' votes and the Exile vote, counts only
            assert len(r["history"]) >= 4, r["history"]
        shots(phones[0], "knives23-result", phone_artifacts)
        shots(phones[2], "knives23-result-de", phone_artifacts)
    finally:
        tablet.stop()
    tablet.report("23 Knives")


def cicero_board(view, lang):
    return [view["princeps"] or "–", f"{view['round']}/{view['rounds']}"] + [
        f"{p} {n}" for p, n in view["prestige"].items()]


def cicero_timers(view):
    if view["phase"] == "debate":
        return {"cicero.debate": view["election"]["debate_seconds"]}
    return {}


def test_five_phones_follow_a_cicero_round(phones, tmp_path, phone_artifacts, wide_loopback):
    from companion.games.cicero import demo
    from companion.games.cicero.rules import CiceroRules
    setup = {"players": FIVE, "ages": {p: 30 + i for i, p in enumerate(FIVE)}}
    tablet = Tablet(tmp_path, CiceroRules(), setup, cicero_timers,
                    run=lambda c: demo.execute_breaking_ties(tablet.session.execute, c))
    turn_of = lambda v: (v["draft"]["player"] if v["phase"] == "draft"  # noqa: E731
                         else v.get("next_to_place") if v["phase"] == "servants" else None)
    try:
        seat_phones(tablet, phones)
        while tablet.session.view("table")["round"] < 2:   # to the first election
            demo.execute_breaking_ties(tablet.session.execute, demo.table_move(tablet.session.view("table")))
        debate = ballot = False
        while tablet.session.view("table")["round"] == 2:
            view = tablet.session.view("table")
            if view["phase"] == "ballot":
                vote_on_phones(tablet, phones, {p: demo.ballot(FIVE, 2, p) for p in FIVE})
                tablet.execute([], phones)
                ballot = True
                continue
            tablet.execute([demo.table_move(view)], phones)
            check_all(tablet, phones, cicero_board, turn_of)
            if tablet.session.view("table")["phase"] == "debate":
                r = phones[0].execute_script(READ)
                debate = bool(r["timers"]) and r["timers"][0].startswith("Debate")
                shots(phones[0], "cicero-debate", phone_artifacts)
            if tablet.session.view("table")["phase"] == "ballot":
                shots(phones[0], "cicero-ballot", phone_artifacts)
        assert debate and ballot
        for i, drv in enumerate(phones):   # the election's counts in the public history
            assert drv.execute_script(READ)["history"], FIVE[i]
        shots(phones[2], "cicero-round-3-de", phone_artifacts)
    finally:
        tablet.stop()
    tablet.report("Cicero round 2")


def _advance(session, rng, until, limit=400):
    """Random legal table moves (no corrections) until ``until(view)``."""
    for _ in range(limit):
        if until(session.view("table")):
            return
        rules, state = session.rules, session.state
        entries = [e for e in legal_commands(rules, state) if not e.name.startswith("correct")]
        entry = rng.choice(entries)
        spec = rules.commands[entry.name]
        fresh = [c for c in rules.commands.candidates(spec, state, None, rng=rng)
                 if rules.commands.accepts(rules, state, spec.name, c)]
        from companion.core.events import Command
        session.execute(Command(entry.name, rng.choice(fresh or list(entry.examples))))
    raise AssertionError("not reached")


@pytest.mark.parametrize("game", ["masks", "sevenknights"])
def test_the_other_games_on_a_phone(game, phones, tmp_path, phone_artifacts, wide_loopback):
    """Masks' Discussion timer and Seven Knights' round, Captain and scores on a seat's phone."""
    rng = random.Random(3)
    if game == "masks":
        from companion.games.masks.rules import MasksRules
        tablet = Tablet(tmp_path, MasksRules(), {"players": FIVE},
                        lambda v: {"masks.discussion": v["discussion_seconds"]} if v["phase"] == "discussion" else {})
        until = lambda v: v["phase"] == "discussion"  # noqa: E731
    else:
        from companion.games.sevenknights.rules import SevenKnightsRules
        tablet = Tablet(tmp_path, SevenKnightsRules(), {"players": FIVE, "mode": "basic", "first": "Ann"},
                        lambda v: {})
        until = lambda v: v["round"] >= 2 and v["phase"] == "questions"  # noqa: E731
    try:
        seat_phones(tablet, phones[:1])
        _advance(tablet.session, rng, until)
        tablet.execute([], phones[:1])
        r = phones[0].execute_script(READ)
        if game == "masks":
            assert r["timers"] and r["timers"][0].startswith("Discussion"), r
            assert ["Discussion", "7 min"] in r["board"], r["board"]
        else:
            view = tablet.session.view("table")
            assert ["Captain", view["captain"] or "–"] in r["board"] or view["captain"] is None
            assert any(b[0] == "Scores" for b in r["board"]), r["board"]
        shots(phones[0], game, phone_artifacts)
    finally:
        tablet.stop()
