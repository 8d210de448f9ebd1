"""README and docs stay true: set-up commands, CI wiring, runnable examples, generated tables."""

from __future__ import annotations

import re
from pathlib import Path

from experiments.gen_docs import BLOCKS, render

ROOT = Path(__file__).resolve().parent.parent


def code_blocks(path: Path, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", path.read_text(), re.S)


def test_readme_starts_with_the_two_setup_commands():
    text = (ROOT / "README.md").read_text()
    first = text.split("```")[1]
    assert first.startswith("bash\n")
    commands = [line for line in first.splitlines()[1:] if line.strip()]
    assert len(commands) == 2
    assert "casino-env demo" in commands[0] and "pip install" in commands[0]
    assert "pytest" in commands[1]
    # nothing but the title comes before the commands
    assert text.index("```bash") < text.index("\n## ")


def test_ci_runs_the_readme_test_command():
    test_command = code_blocks(ROOT / "README.md", "bash")[0].strip().splitlines()[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci.splitlines()
    assert "torch==2.13.0" in ci  # the CPU build from local disk, installed first
    assert ci.index("torch==2.13.0") < ci.index('-e ".[train,dev,rllib]"')


def test_generated_blocks_are_up_to_date():
    """Run `python -m experiments.gen_docs` when this fails."""
    for rel, blocks in BLOCKS.items():
        text = (ROOT / rel).read_text()
        assert render(text, blocks) == text, f"{rel} is stale"


def test_python_examples_run():
    for rel in ("README.md", "docs/environment.md"):
        for code in code_blocks(ROOT / rel, "python"):
            exec(compile(code, rel, "exec"), {})


def test_readme_random_loop_is_ten_lines():
    loop = code_blocks(ROOT / "README.md", "python")[0]
    assert len([line for line in loop.splitlines() if line.strip()]) <= 10
