"""One configuration, checked, and a command line like its neighbours' (issue 52, items 1-2): [tool.book]
is read into execbook.config.Settings, an unknown key or a wrong type is named at its line (by `check`
and `build` alike), `schema()` describes every setting; the commands' help works outside a book."""

import dataclasses
import json
import os
import pkgutil
import re
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path

import jsonschema
import pytest

from execbook import __version__, cli, config, lint
from execbook import source as page_model
from execbook.sphinxext.config import configure

BOOK = """\
[project]
name = "a-book"
version = "0"

[tool.book]
languages = { en = "English" }
titles = { en = "A book" }
site-url = "https://example.org/book"
repository = "https://github.com/example/book"
"""


def faults(tmp_path: Path, more: str) -> list[str]:
    (tmp_path / "pyproject.toml").write_text(BOOK + more, encoding="utf-8")
    with pytest.raises(config.SettingError) as raised:
        config.read(tmp_path)
    return str(raised.value).splitlines()


def at(tmp_path: Path, text: str) -> str:
    """ "pyproject.toml:N:", N the line of tmp_path's pyproject.toml that is text."""
    return f"pyproject.toml:{(tmp_path / 'pyproject.toml').read_text(encoding='utf-8').splitlines().index(text) + 1}:"


@pytest.mark.parametrize(
    "lines, said",  # said: the line's index in lines -> what is said of it
    [
        (
            ['langauge = "x"', 'source-brnch = "main"', "", "[tool.book.hooks]", 'jugde = "book:judge"'],
            {
                0: "langauge is no setting → did you mean languages?",
                1: "source-brnch is no setting → did you mean source-branch?",
                4: "hooks.jugde is no setting → did you mean judge?",
            },
        ),
        (["zzz = 1"], {0: "zzz is no setting → remove it (python -m execbook schema lists the settings)"}),
        (
            ['cell-timeout = "600"', 'versions = ["numpy", 2]', "", "[tool.book.intersphinx.other]", "url = true"],
            {
                0: "cell-timeout is a string, not an integer → write an integer",
                1: "versions is an integer, not a string → write a string",
                4: "intersphinx.other.url is true or false, not a string → write a string",
            },
        ),
    ],
)
def test_an_unknown_key_or_a_wrong_type_is_named_at_its_line(tmp_path, lines, said):
    found = faults(tmp_path, "\n".join(lines))
    assert found == [f"{at(tmp_path, lines[index])} [tool.book] {what}" for index, what in said.items()]


def test_a_missing_setting_is_named_at_its_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text(BOOK.replace('site-url = "https://example.org/book"\n', ""))
    with pytest.raises(config.SettingError) as raised:
        config.read(tmp_path)
    assert str(raised.value).startswith(f"{at(tmp_path, '[tool.book]')} [tool.book] has no site-url → add it: where")


def test_settings_have_their_defaults_and_are_read_once_into_one_frozen_object(tmp_path):
    (tmp_path / "pyproject.toml").write_text(BOOK + "cell-timeout = 5\n", encoding="utf-8")
    read = config.read(tmp_path)
    assert read.cell_timeout == 5 and read.site_url == "https://example.org/book/" and read.source_branch == "main"
    with pytest.raises(dataclasses.FrozenInstanceError):
        read.cell_timeout = 1  # type: ignore[misc]
    (tmp_path / "pyproject.toml").write_text(BOOK, encoding="utf-8")
    assert config.read(tmp_path).cell_timeout == 600
    assert config.settings() is config.settings() and config.LANGUAGES == config.settings().languages


def test_check_and_build_both_refuse_a_misspelt_key_at_its_line_in_one_line(tmp_path):
    typo = 'langauges = { en = "English" }'
    (tmp_path / "pyproject.toml").write_text(f"{BOOK}{typo}\n", encoding="utf-8")
    said = f"{at(tmp_path, typo)} [tool.book] langauges is no setting"
    for command in ("check", "build"):
        done = subprocess.run(
            [sys.executable, "-m", "execbook", "--root", str(tmp_path), command], capture_output=True, text=True
        )
        assert (done.returncode, done.stderr) == (2, f"{said} → did you mean languages?\n"), (command, done.stderr)


def fields_of(kind: type) -> list[tuple[type, dataclasses.Field]]:
    nested = [f.type for f in dataclasses.fields(kind) if dataclasses.is_dataclass(f.type)]
    return [(kind, f) for f in dataclasses.fields(kind)] + [pair for n in nested for pair in fields_of(n)]


def test_the_schema_describes_every_setting_with_its_type_default_and_description():
    schema = config.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    tables = {config.Settings: schema, config.Hooks: schema["properties"]["hooks"]}
    tables[config.Intersphinx] = schema["properties"]["intersphinx"]["additionalProperties"]
    for kind, field in [*fields_of(config.Settings), *fields_of(config.Intersphinx)]:
        described = tables[kind]["properties"][field.name.replace("_", "-")]
        assert described["type"] and described["description"] == field.metadata["help"]
        required = field.default is field.default_factory is dataclasses.MISSING
        assert ("default" not in described) == required == (field.name.replace("_", "-") in tables[kind]["required"])
    assert schema["properties"]["cell-timeout"] == {
        "type": "integer",
        "default": 600,
        "description": "seconds a cell may run before its page fails",
    }
    this_book = tomllib.loads((config.REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["book"]
    jsonschema.validate(this_book, schema)  # what the engine reads, an editor accepts
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**this_book, "langauges": {}}, schema)
    printed = subprocess.run([sys.executable, "-m", "execbook", "schema"], capture_output=True, text=True, check=True)
    assert json.loads(printed.stdout) == schema


def test_the_cell_timeout_is_the_setting_for_the_build_and_sphinx(monkeypatch):
    monkeypatch.setattr(config, "settings", lambda: dataclasses.replace(config.read(config.REPO), cell_timeout=7))
    assert config.CELL_TIMEOUT == 7 and configure("en")["nb_execution_timeout"] == 7
    engine = config.PACKAGE_DIRS["execbook"]
    written = [p.name for p in engine.rglob("*.py") if re.search(r"\b600\b", p.read_text(encoding="utf-8"))]
    assert written == ["config.py"], "the timeout's default is written once, in its setting"


def inventory(path: Path, *entries: str) -> None:
    """An objects.inv as Sphinx writes it (version 2), with entries "name domain:type priority uri dispname"."""
    path.parent.mkdir(parents=True)
    head = b"# Sphinx inventory version 2\n# Project: other\n# Version: 1\n# The remainder is compressed with zlib.\n"
    path.write_bytes(head + zlib.compress("".join(f"{e}\n" for e in entries).encode()))


def test_intersphinx_is_a_setting_read_offline_by_sphinx_and_check(tmp_path, monkeypatch):
    other = config.Intersphinx(url="https://example.org/other/{language}/", inventory="inv/{language}/objects.inv")
    book = dataclasses.replace(config.read(config.REPO), intersphinx={"other": other})
    monkeypatch.setattr(config, "settings", lambda: book)
    conf = configure("en")
    wanted = os.path.relpath(config.REPO / "inv/en/objects.inv", config.DOCS / "en")
    assert conf["intersphinx_mapping"] == {"other": ("https://example.org/other/en/", wanted)}
    assert "sphinx.ext.intersphinx" in conf["extensions"]
    monkeypatch.setattr(config, "REPO", tmp_path)
    inventory(
        tmp_path / "inv/en/objects.inv", "intro std:label -1 intro.html#intro Intro", "index std:doc -1 index.html -"
    )
    page = (
        "# Page\n\nSee {ref}`other:intro`, {doc}`the index <other:index>`,\n{ref}`other:intor` and {doc}`other:indx`.\n"
    )
    source = page_model.parse(page, tmp_path / "page.md", "docs/en/page.md")
    found = [str(p) for p in lint.intersphinx_problems("en", {"page": source})]
    assert found == [
        "docs/en/page.md:4: {ref}`other:intor` names no label 'intor' in inv/en/objects.inv"
        " → did you mean `other:intro`?",
        "docs/en/page.md:4: {doc}`other:indx` names no page 'indx' in inv/en/objects.inv → did you mean `other:index`?",
    ]
    monkeypatch.setattr(config, "settings", lambda: dataclasses.replace(book, intersphinx={}))
    conf = configure("en")
    assert conf["intersphinx_mapping"] == {} and "sphinx.ext.intersphinx" not in conf["extensions"]


def test_help_works_for_every_command_outside_a_book(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(config.ROOT_ENV, raising=False)
    listed = subprocess.run([sys.executable, "-m", "execbook", "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("usage: execbook ")
    for name, (_, help) in cli.COMMANDS.items():
        assert f"    {name}" in listed.stdout and " ".join(help.split()[:4]) in " ".join(listed.stdout.split())
        with pytest.raises(SystemExit) as done:
            cli.main([name, "--help"])
        assert done.value.code == 0 and capsys.readouterr().out.startswith(f"usage: execbook {name} ")


def test_version_bad_input_and_the_console_script(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"execbook {__version__}\n"
    for wrong in (["bogus"], ["run"], ["build", "--hot"], []):
        with pytest.raises(SystemExit) as done:
            cli.main(wrong)
        err = capsys.readouterr().err
        assert done.value.code == 2 and len(err.splitlines()) == 1 and "--help" in err, (wrong, err)
    project = tomllib.loads((config.PACKAGE_DIRS["execbook"].parents[1] / "pyproject.toml").read_text())
    assert pkgutil.resolve_name(project["project"]["scripts"]["execbook"]) is cli.main
