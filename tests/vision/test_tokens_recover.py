"""The last look at single frames (vision/recover.py): markers whose border a fingertip broke.

The old reader (ArUco and its contrast-evened second look, ``recovery`` off) is run on the same
frames, so each test shows what the last look adds, and that it adds no wrong side."""
from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from companion.core.events import BadInput
from vision import markers, recover, synth, track
from vision.reader import TokenReader

FOUR = {1: "exile", 2: "remain", 3: "remain", 4: "exile"}


def readers(players=8, kind="token"):
    old = TokenReader(players, kind)
    old.recovery = False
    return old, TokenReader(players, kind)


def wrong(tokens, truth):
    return {s: f for s, f in tokens.items() if truth.get(s) != f}


def test_a_fingertip_on_every_marker_no_longer_hides_the_table():
    """Clear light, no blur, and a fingertip over a corner or an edge of each of the four
    markers: ArUco finds no four-sided outline; the last look reads them."""
    old_read = new_read = 0
    for seed in range(8):
        scene = synth.make_scene(np.random.default_rng(seed), "easy", players=4, faces=FOUR,
                                 finger="marker", finger_p=1.0, side=(40, 60))
        old, new = readers(4)
        before, after = old.read(scene.image).tokens, new.read(scene.image).tokens
        assert not wrong(before, FOUR) and not wrong(after, FOUR)
        old_read += len(before)
        new_read += len(after)
    assert old_read <= 3  # of 32: the fingers do break the old reader
    assert new_read >= 26, f"read {new_read} of 32"


def test_hard_scenes_read_far_more_with_no_wrong_side():
    placed = old_read = new_read = 0
    for n in range(6):
        scene = synth.make_scene(np.random.default_rng([7, n, 3]), "hard")
        old, new = readers()
        before, after = old.read(scene.image).tokens, new.read(scene.image).tokens
        assert not wrong(before, scene.truth)
        assert not wrong(after, scene.truth), "a wrong side"
        assert set(before) <= set(after)  # the last look only adds
        placed += len(scene.truth)
        old_read += len(before)
        new_read += len(after)
    assert new_read - old_read >= 8, f"{old_read} → {new_read} of {placed}"


@pytest.mark.parametrize("level", ["moderate", "hard"])
def test_an_empty_table_still_reads_nothing(level):
    for n in range(4):
        scene = synth.make_scene(np.random.default_rng([11, n]), level, faces={})
        reading = TokenReader(8, "token").read(scene.image)
        assert reading.tokens == {} and reading.seen == () and not reading.warnings


def _card(marker_id: int, grey_only: bool = False) -> np.ndarray:
    """A 60-px marker on a white page with a fingertip over its top-left corner."""
    img = np.full((240, 320, 3), 235, np.uint8)
    img[90:150, 130:190] = cv2.cvtColor(markers.marker_image(marker_id, 60), cv2.COLOR_GRAY2BGR)
    cv2.line(img, (60, 40), (137, 97), (120, 150, 210), 22, cv2.LINE_AA)  # skin, BGR
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if grey_only else img


@functools.cache
def _stranger() -> int:
    """A DICT_5X5_1000 marker outside the plan, as far from all of ours as any."""
    plan = set(markers.all_faces())
    return max((i for i in range(1000) if i not in plan), key=lambda i: min(markers.distance(i, j) for j in plan))


def test_a_marker_under_a_fingertip_is_read_and_a_marker_not_ours_is_not():
    old, new = readers()
    ours = _card(markers.TOKEN_IDS[2][1])  # seat 3's remain side
    assert old.read(ours).tokens == {}
    assert new.read(ours).tokens == {3: "remain"}
    assert new.read(_card(_stranger())).tokens == {}


def test_a_grey_frame_is_read_without_colour_to_erase():
    """No colour: the fingertip is just a light shape; nothing is erased and nothing breaks."""
    frame = _card(markers.TOKEN_IDS[2][1], grey_only=True)
    assert recover.colour_mask(frame) is None
    tokens = TokenReader(8, "token").read(frame).tokens
    assert tokens in ({}, {3: "remain"})


def test_a_glare_spot_across_a_marker_no_longer_loses_it():
    """benchmarks/tokens_accuracy.py's moderate scene 11 (seed 1): a glare spot over seat 6's
    marker lifts its black cells on one side above the white ones on the other. One threshold
    fails; the light fitted from the marker's black border first reads it."""
    scene = synth.make_scene(np.random.default_rng([1, 11, 2]), "moderate")
    old, new = readers()
    assert 6 not in old.read(scene.image).tokens
    after = new.read(scene.image).tokens
    assert after[6] == scene.truth[6] and not wrong(after, scene.truth)


def _smeared(marker_id: int, side: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A marker on a white page smeared 7 px sideways, and its true corners (pixel edges)."""
    img = np.full((240, 320, 3), 225, np.uint8)
    img[100:100 + side, 140:140 + side] = cv2.cvtColor(markers.marker_image(marker_id, side), cv2.COLOR_GRAY2BGR)
    smear = np.zeros((7, 7), np.float32)
    smear[3, :] = 1 / 7
    img = cv2.filter2D(img, -1, smear)
    true = np.float32([[140, 100], [140 + side, 100], [140 + side, 100 + side], [140, 100 + side]]) - 0.5
    return img, true


@pytest.mark.parametrize("grow", [3, 5, 6])
def test_a_quad_a_cell_off_the_marker_is_aligned_onto_it_and_read(grow):
    """A washed-out or smeared marker's outline comes out a cell too big or askew: its cells read
    as nothing there. ECC alignment of the border-and-margin template moves it onto the marker."""
    mid = markers.TOKEN_IDS[2][1]
    ids = TokenReader(8, "token")._ids
    img, true = _smeared(mid)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    off = true + np.float32([[-grow, -grow], [grow, -grow / 2], [grow, grow], [-grow / 2, grow]]) + np.float32([2, 1])
    assert track.reread(img, grey, off, ids) is None
    moved = recover.align(grey, None, off)
    assert moved is not None and np.abs(moved - true).max() < 1.5
    got = track.reread(img, grey, moved, ids)
    assert got is not None and ids[got[0]] == mid


def test_aligning_onto_a_dark_square_or_a_stranger_reads_nothing():
    """The template is any marker's edge, so a plain dark square or a marker not in the plan
    aligns as well as ours: the cells' guard, not the alignment, keeps them out."""
    ids = TokenReader(8, "token")._ids
    stranger = _stranger()
    square = np.full((240, 320, 3), 225, np.uint8)
    square[100:140, 140:180] = 20
    for img, true in (_smeared(stranger), (square, _smeared(stranger)[1])):
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        moved = recover.align(grey, None, true + np.float32([4, -3]))
        assert moved is not None and np.abs(moved - true).max() < 1.5
        assert track.reread(img, grey, moved, ids) is None
        assert TokenReader(8, "token").read(img).tokens == {}


def test_a_photo_gets_the_thorough_look_and_a_video_tile_the_quick_one():
    """The wide threshold and the alignment run on photos (the command line, calibration); a
    video's deep tile leaves them out (they read no more ballots there, for more time)."""
    reads = {True: 0, False: 0}
    for n in range(6):
        scene = synth.make_scene(np.random.default_rng([7, n, 3]), "hard")
        before, _ = readers()
        reading = before.read(scene.image)
        grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
        for thorough in (True, False):
            found = recover.recover(scene.image, grey, before._ids, [s.corners for s in reading.sightings],
                                    before._rejected, thorough=thorough)
            faces = [before._faces[before._ids[i]] for i, _ in found]
            assert all(scene.truth.get(f.seat) == f.face for f in faces), "a wrong side"
            reads[thorough] += len(faces)
    assert reads[True] > reads[False], reads


def _notched_triangle() -> np.ndarray:
    """A dark right triangle with a notch in one leg: its outline has more than three points,
    its convex hull three (approxPolyN asserts on fewer than four)."""
    img = np.full((300, 400, 3), 230, np.uint8)
    cv2.fillPoly(img, [np.array([[100, 100], [200, 100], [100, 200]], np.int32)], (20, 20, 20))
    cv2.rectangle(img, (140, 100), (150, 104), (230, 230, 230), -1)
    return img


def test_a_dark_triangle_is_no_marker_and_no_crash():
    """It raised cv2.error out of the reader (the command line's traceback, the camera's thread
    gone) until hulls of three points were left out."""
    for video in (False, True):
        reader = TokenReader(8, "token", tracking=video)
        for _ in range(3):
            assert reader.read(_notched_triangle()).tokens == {}


def test_an_opencv_failure_costs_one_frame_with_a_one_line_message(monkeypatch):
    def fails(*a, **k):
        raise cv2.error("OpenCV(5.0.0) x.cpp:1: error: (-215:Assertion failed) n >= 4 in function 'approxPolyN'")

    reader = TokenReader(8, "token")
    monkeypatch.setattr(recover, "candidates", fails)
    with pytest.raises(BadInput, match="frame not read: OpenCV failed") as err:
        reader.read(_card(markers.TOKEN_IDS[2][1]))
    assert "\n" not in str(err.value)
    monkeypatch.undo()
    assert reader.read(_card(markers.TOKEN_IDS[2][1])).tokens == {3: "remain"}


def test_a_finger_at_the_marker_edge_no_longer_joins_it_to_the_table():
    """benchmarks/tokens_accuracy.py's hard scene 35 (seed 1), dim light: a bright finger at the
    edge of seats 3's and 7's markers lifts the windows' means, so the white margin next to it
    thresholds dark and joins the border to the finger's rim; no shape is the marker's own.
    With the fingers left out of the means, each marker has its own outline and reads."""
    scene = synth.make_scene(np.random.default_rng([1, 35, 3]), "hard", kind="token")
    reader = TokenReader(8, "token")
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    colour = recover.colour_mask(scene.image)
    for seat in (3, 7):
        placed = next(p for p in scene.placed if p.face.seat == seat)
        centre = placed.quad.mean(axis=0)

        def reads(fingers_out: bool) -> bool:
            near = [q for q in recover.candidates(grey, colour, fingers_out=fingers_out)
                    if np.abs(q.mean(axis=0) - centre).max() < 8]
            got = [track.reread(scene.image, grey, q, reader._ids) for q in near]
            return any(g is not None and reader._faces[reader._ids[g[0]]] == placed.face for g in got)

        assert not reads(False) and reads(True)
    tokens = reader.read(scene.image).tokens
    assert tokens[3] == scene.truth[3] and tokens[7] == scene.truth[7] and not wrong(tokens, scene.truth)


@pytest.mark.parametrize("scene_no, seat", [(19, 8), (27, 2)])
def test_a_smeared_marker_split_by_its_own_level_is_read(scene_no, seat):
    """benchmarks/tokens_accuracy.py's hard scenes (seed 1), a heavy smear: the adaptive windows
    cut the marker into its dark core or join it to the card's shadow, and every shape found near
    it reads as nothing, aligned or not (too far off to pull in). Split from white by Otsu's level
    of its own neighbourhood, the marker is one dark shape; aligned, it reads, and the reader
    reads the seat right."""
    scene = synth.make_scene(np.random.default_rng([1, scene_no, 3]), "hard", kind="token")
    reader = TokenReader(8, "token")
    grey = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    colour = recover.colour_mask(scene.image)
    placed = next(p for p in scene.placed if p.face.seat == seat)
    centre = placed.quad.mean(axis=0)

    def right(quad) -> bool:
        got = None if quad is None else track.reread(scene.image, grey, quad, reader._ids)
        return got is not None and reader._faces[reader._ids[got[0]]] == placed.face

    near = [q for q in recover.candidates(grey, colour) if np.abs(q.mean(axis=0) - centre).max() < 20]
    assert near, "no shape near the marker: the test shows nothing"
    assert not any(right(q) or right(recover.align(grey, colour, q)) for q in near)
    assert any(right(recover.align(grey, colour, q)) for shape in near
               for q in recover._local_quads(grey, colour, shape))
    tokens = reader.read(scene.image).tokens
    assert tokens[seat] == scene.truth[seat] and not wrong(tokens, scene.truth)


def _benchmark_scene(held_out: str | None, scene_no: int, level: str = "hard"):
    """benchmarks/tokens_accuracy.py's scene ``scene_no`` (seed 1) of ``level`` ("hard" or
    "strangers") in the tuned-on set or a held-out one."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import tokens_accuracy
    over, seed = tokens_accuracy._variant("hard", 1, held_out)
    if level == "strangers":
        over = {**over, "strangers": True}
    return synth.make_scene(np.random.default_rng([seed, scene_no, tokens_accuracy.LEVEL_IDS[level]]), "hard",
                            kind="token", **over)


@pytest.mark.parametrize("held_out, scene_no, seat", [(None, 49, 2), ("ranges", 24, 4), ("lens", 22, 1)])
def test_a_shape_still_unread_is_fitted_onto_the_likeliest_marker_and_read(monkeypatch, held_out, scene_no, seat):
    """Hard scenes where every other step of the last look leaves a seat unread: the shapes near
    it, fitted onto the whole picture of the marker their cells look likeliest to be, read it,
    and the seat is read right with nothing read wrong."""
    scene = _benchmark_scene(held_out, scene_no)
    monkeypatch.setattr(recover, "GUESSES", 0)
    without = TokenReader(8, "token").read(scene.image).tokens
    assert seat not in without and not wrong(without, scene.truth)
    monkeypatch.setattr(recover, "GUESSES", 1)
    tokens = TokenReader(8, "token").read(scene.image).tokens
    assert tokens.get(seat) == scene.truth[seat] and not wrong(tokens, scene.truth)


def test_fitting_a_stranger_or_a_dark_square_onto_our_likeliest_marker_reads_nothing():
    """The fit moves a quad to match one of our markers' pictures as well as it can; a marker not
    in the plan, or a plain dark square, still fails the cells' guard there. Our own marker, the
    same few pixels off, is read."""
    ids = TokenReader(8, "token")._ids
    nudge = np.float32([[4, -4], [6, 2], [-2, 6], [-4, -2]])  # our marker's cells do not read there
    ours, true = _smeared(markers.TOKEN_IDS[2][1], side=30)
    square = np.full((240, 320, 3), 225, np.uint8)
    square[100:130, 140:170] = 20
    for img, should in ((_smeared(_stranger(), side=30)[0], None), (square, None),
                        (ours, markers.TOKEN_IDS[2][1])):
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        assert track.reread(img, grey, true + nudge, ids) is None
        got = recover._read_fitted(img, grey, true + nudge, ids, recover._Quads())
        assert (None if got is None else ids[got[0]]) == should


@pytest.mark.parametrize("table", [(60, 60, 60), (40, 70, 120)])  # grey; brown wood (BGR), "coloured"
def test_a_marker_pattern_with_table_round_it_instead_of_its_white_margin_reads_as_nothing(table):
    """Every printed marker has a white margin. The cells of a quad on the table (beside glare,
    say) can spell one of our markers; with table round them, not margin, they are not read,
    whether the table is grey or brown (which the colour mask erases like a finger). The same
    pattern with its margin reads."""
    ids = TokenReader(8, "token")._ids
    mid = markers.TOKEN_IDS[3][0]
    side = 42
    pattern = cv2.cvtColor(markers.marker_image(mid, side), cv2.COLOR_GRAY2BGR)
    quad = np.float32([[100, 80], [100 + side, 80], [100 + side, 80 + side], [100, 80 + side]]) - 0.5
    on_table = np.full((240, 320, 3), table, np.uint8)
    on_table[80:80 + side, 100:100 + side] = np.where(pattern > 127, 200, 45).astype(np.uint8)
    with_margin = on_table.copy()
    with_margin[70:80 + side + 10, 90:100 + side + 10] = 235
    with_margin[80:80 + side, 100:100 + side] = on_table[80:80 + side, 100:100 + side]
    for img, should in ((on_table, None), (with_margin, mid)):
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        got = track.reread(img, grey, quad, ids)
        assert (None if got is None else ids[got[0]]) == should


def test_another_games_markers_on_a_hard_table_read_as_nothing():
    """benchmarks/tokens_accuracy.py's strangers level: every card carries a DICT_5X5_1000 marker
    outside the plan (5 or more bits from all of ours). Scene 9 of the held-out lens set has one
    foreshortened to a 10-px sliver, whose cells a curved light once turned into seat 4's remain
    side; a sliver no longer gets the curved light, and nothing on these tables is read."""
    reader = TokenReader(8, "token")
    for scene_no in (9, 0, 1, 2):
        scene = _benchmark_scene("lens", scene_no, "strangers")
        assert reader.read(scene.image).tokens == {}, scene_no


def _aligned_quads(monkeypatch) -> list[np.ndarray]:
    calls: list[np.ndarray] = []
    real = recover.align

    def align(grey, colour, quad):
        calls.append(quad.copy())
        return real(grey, colour, quad)

    monkeypatch.setattr(recover, "align", align)
    return calls


def test_the_careful_looks_are_not_spent_on_the_print_of_cards_already_read(monkeypatch):
    """Seven tokens on the table and an eighth seat missing: the last look runs, but the print
    round every marker already read (its seat number, its side's name, its band) cannot hold
    another marker, so no shape there is aligned (before: about two fifths of a hard photo's
    shapes were, for nothing). What is read stays the same."""
    faces = {s: markers.TOKEN_SIDES[s % 2] for s in range(1, 8)}
    aligned = _aligned_quads(monkeypatch)
    for seed in range(3):
        scene = synth.make_scene(np.random.default_rng(seed), "moderate", players=8, faces=faces,
                                 finger="none", side=(50, 70))
        aligned.clear()
        got = TokenReader(8, "token").read(scene.image)
        assert got.tokens == faces
        for placed in scene.placed:
            # the true marker's own square (0..1 across it): its card reaches 0.22 beyond it on
            # either side, 0.38 above and 0.44 below (46 × 58 mm round 32 mm)
            own = cv2.getPerspectiveTransform(placed.quad.astype(np.float32),
                                              np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]))
            on_card = []
            for q in aligned:
                u, v = cv2.perspectiveTransform(q.mean(axis=0).reshape(1, 1, 2).astype(np.float32), own).ravel()
                if -0.15 <= u <= 1.15 and -0.3 <= v <= 1.35:
                    on_card.append((round(float(u), 2), round(float(v), 2)))
            assert on_card == [], (seed, placed.face, on_card)


def test_the_last_look_stops_once_every_seat_of_the_table_is_read(monkeypatch):
    """Done is done: once the last look has read the last seat missing, the shapes left are not
    read at all (a photo answers sooner); the seats read are the same. Dark squares of table
    are given to it after the shapes it finds; they are read only while a seat is missing."""
    decoys = [np.float32([[x, 600], [x + 40, 600], [x + 40, 640], [x, 640]]) for x in range(100, 1200, 100)]
    real_candidates, real_reread = recover.candidates, track.reread
    monkeypatch.setattr(recover, "candidates", lambda *a, **kw: real_candidates(*a, **kw) + [d.copy() for d in decoys])
    decoys_read = []

    def reread(frame, grey, quad, ids, *a, **kw):
        if any(np.abs(quad - d).max() < 1e-3 for d in decoys):
            decoys_read.append(quad)
        return real_reread(frame, grey, quad, ids, *a, **kw)

    monkeypatch.setattr(track, "reread", reread)
    scene = synth.make_scene(np.random.default_rng(3), "easy", players=4, faces=FOUR,
                             finger="marker", finger_p=1.0, side=(40, 60))
    old = TokenReader(4, "token")
    old.recovery = False
    assert len(old.read(scene.image).tokens) < 4  # the last look is what reads the table
    assert TokenReader(4, "token").read(scene.image).tokens == FOUR
    assert decoys_read == []
    # a table said to have 8 seats, 4 of them never there: the look goes on to the end
    assert TokenReader(8, "token").read(scene.image).tokens == FOUR
    assert len(decoys_read) == len(decoys)
