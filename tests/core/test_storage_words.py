"""Issue 17: the journal's storage errors reach the tablet's screen, so they are said in the
table's language (``i18n.error_text``), while ``str()`` stays English for logs and the
referee. Real files, real SQLite, a real second process holding the lock."""
from __future__ import annotations

import sqlite3

import pytest

from companion.core import i18n
from companion.core.events import BadInput
from companion.core.journal import (DataInUse, DataLock, Journal, JournalDamaged, StorageFull,
                                    StorageUnavailable, storage_error)

from .faults import lock_held_elsewhere
from .test_storage_faults import damaged_header


@pytest.fixture
def french(monkeypatch):
    monkeypatch.setattr(i18n, "_language", "fr")


def said(exc: BaseException) -> dict[str, str]:
    return {lang: i18n.text_of(exc, lang) for lang in ("en", "fr", "de")}


def test_a_damaged_journal_opened_with_french_current_is_said_in_french(tmp_path, french):
    path = tmp_path / "journal.sqlite3"
    damaged_header(path)
    with pytest.raises(JournalDamaged) as e:
        Journal(path)
    shown = i18n.error_text(e.value)   # what the tablet shows
    assert "journal.sqlite3" in shown and "\n" not in shown
    assert "ne peut pas être ouvert" in shown or "endommagé" in shown, shown
    words = shown.replace(str(path), "")   # the test's folder may hold any word
    assert "cannot" not in words and "damaged" not in words
    assert "cannot be opened" in str(e.value) or "is damaged" in str(e.value)   # the log's English
    assert "Spieljournal" in said(e.value)["de"]


def test_another_programs_file_and_a_newer_journal_are_said_in_french(tmp_path, french):
    other = tmp_path / "recipes.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(JournalDamaged) as e:
        Journal(other)
    assert i18n.error_text(e.value) == f"le journal {other} est un fichier SQLite d'un autre programme (tables : recipes)"
    assert str(e.value) == f"journal {other} is a SQLite file of another program (tables: recipes)"

    newer = tmp_path / "newer.sqlite3"
    Journal(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(JournalDamaged) as e:
        Journal(newer)
    assert "version plus récente (schéma 99" in i18n.error_text(e.value)
    assert "neueren Version geschrieben (Schema 99" in said(e.value)["de"]


def test_a_folder_that_cannot_be_created_and_a_full_disk_are_said_in_french(tmp_path, french):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageUnavailable) as e:
        Journal(blocker / "data" / "journal.sqlite3")
    assert i18n.error_text(e.value) == f"Le dossier de données {blocker / 'data'} ne peut pas être créé (Ce n'est pas un dossier)"
    assert str(e.value) == f"The data folder {blocker / 'data'} cannot be created (Not a directory)"   # as before

    full = storage_error(sqlite3.OperationalError("database or disk is full"), tmp_path / "j.sqlite3")
    assert isinstance(full, StorageFull)
    assert i18n.error_text(full) == "La mémoire de la tablette est pleine : libérez de la place ; rien n'a été perdu"
    assert str(full) == "The tablet's storage is full: free some space; nothing was lost"


def test_a_folder_that_is_gone_says_why_in_french(tmp_path, french):
    """The reason in brackets is the table's words too when the folder tells us why."""
    gone = tmp_path / "gone"
    with pytest.raises(StorageUnavailable) as e:
        DataLock(gone).acquire()
    assert i18n.error_text(e.value) == f"Impossible d'écrire dans le dossier de données {gone} (il n'existe pas)"
    assert said(e.value)["de"] == f"In den Datenordner {gone} kann nicht geschrieben werden (er existiert nicht)"
    assert str(e.value) == f"The data folder {gone} cannot be written (it does not exist)"


def test_a_second_copy_of_the_app_is_told_in_french(tmp_path, french):
    with lock_held_elsewhere(tmp_path) as holder:
        with pytest.raises(DataInUse) as e:
            DataLock(tmp_path).acquire()
    assert i18n.error_text(e.value) == (f"Une autre copie de l'application (processus {holder.pid}) utilise déjà "
                                        f"{tmp_path} ; fermez-la d'abord")


def test_a_broken_english_catalogue_is_still_a_one_line_error_not_a_recursion(tmp_path, monkeypatch):
    """The loader's errors are keyed, and the English catalogue gives their words: when it is the
    English catalogue in use that cannot be read, the one shipped says them; when that one is
    broken too, the error names its key and values."""
    (tmp_path / "en").mkdir()
    for name in ("a.po", "b.po"):   # one key in two files: the loader refuses
        (tmp_path / "en" / name).write_bytes(b'msgid "x.a"\nmsgstr "A"\n')
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    monkeypatch.setattr(i18n, "_catalogues", {})
    with pytest.raises(BadInput) as e:
        i18n.tr("x.a")
    assert str(e.value) == "catalogue key 'x.a' stands in both a.po and b.po"
    monkeypatch.setattr(i18n, "_SHIPPED_DIR", tmp_path)
    monkeypatch.setattr(i18n, "_shipped", [])
    with pytest.raises(BadInput) as e:
        i18n.tr("x.a")
    assert str(e.value) == "i18n.key_twice: name='x.a'; first=a.po; second=b.po"
