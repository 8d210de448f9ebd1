"""Fine-tuning a trained policy with PPO (issue 17 item 2): ``FineTunePPO``, MaskablePPO with
two levers against drift and a diagnostic row per iteration.

- ``value_warmup_steps``: while the run's step count is at most this, each PPO iteration
  updates only the critic (the value network; the policy's parameters are frozen and get no
  gradient, so Adam leaves them exactly as they are), so that the advantages of the first
  policy updates come from a critic fitted to the policy's own returns, not to the returns
  the value head was fitted to during behaviour cloning. ``value_warmup_learning_rate``
  (default: the run's schedule) is the learning rate of those iterations, so that a run
  whose policy learns slowly can still fit its critic quickly first.
- ``kl_anchor`` (beta > 0): beta * KL(pi_start || pi) on each minibatch's states is added to
  PPO's loss, pi_start being the policy PPO started from (``set_start_policy``). sb3's
  ``train`` is one long method; rather than copy it, ``FineTunePPO.train`` runs it with two
  thin wrappers: ``policy.evaluate_actions`` notes the minibatch's observations and action
  masks, and the optimizer's ``zero_grad`` (called by sb3 after computing the minibatch's loss
  and before its ``backward``) computes the anchor term and backpropagates it, so that sb3's
  ``loss.backward()`` accumulates PPO's gradient onto it and gradient clipping and the
  optimizer step see the gradient of the sum, exactly as if the term were in sb3's loss.
  The KL is over legal moves only (the action masks).

With both at 0 ``train`` is sb3's own, unchanged: the diagnostics after it read the rollout
buffer and the logger without touching the parameters or any random generator, so a run
with the defaults is bit-for-bit the run plain MaskablePPO makes (tests/test_finetune.py).

Diagnostics (``diagnostics``, one dict per PPO iteration, ``DIAG_FIELDS``): sb3's explained
variance of the critic on the rollout (before the update), entropy, clip fraction, policy and
value losses and approx KL to the previous policy; the exact KL(pi_start || pi) and the share
of states whose argmax move differs from pi_start's (states with a choice), both on the
rollout's states after the update; the mean |advantage| and the return of the rollout.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from agents.ppo import snapshot_policy

# Parameters of the critic: sb3's value head and the value branch of its mlp_extractor (both
# MoveScorer and sb3's MlpExtractor call it value_net). Everything else shapes the policy.
VALUE_PREFIXES = ("value_net.", "mlp_extractor.value_net.")

DIAG_FIELDS = ("iteration", "timesteps", "phase", "learning_rate", "explained_variance",
               "kl_to_start", "argmax_changed", "approx_kl", "entropy", "clip_fraction",
               "policy_loss", "value_loss", "anchor_kl", "mean_abs_advantage",
               "advantage_std", "mean_return", "mean_value", "ep_rew_mean")


def value_parameter_names(policy: torch.nn.Module) -> list[str]:
    """Names of the critic's parameters (``VALUE_PREFIXES``)."""
    return [n for n, _ in policy.named_parameters() if n.startswith(VALUE_PREFIXES)]


def policy_parameters(policy: torch.nn.Module) -> list[torch.nn.Parameter]:
    """The parameters that change the action distribution (all but the critic's)."""
    return [p for n, p in policy.named_parameters() if not n.startswith(VALUE_PREFIXES)]


@contextlib.contextmanager
def frozen(params: list[torch.nn.Parameter]) -> Iterator[None]:
    """``requires_grad = False`` on ``params`` inside the block: no gradient reaches them, so
    gradient clipping ignores them and Adam skips them (no step, no moment update)."""
    before = [p.requires_grad for p in params]
    for p in params:
        p.requires_grad_(False)
    try:
        yield
    finally:
        for p, r in zip(params, before):
            p.requires_grad_(r)


def log_probs(policy, obs, masks) -> torch.Tensor:
    """(B, A) log-probabilities of ``policy`` with ``masks`` applied (illegal ~ -1e8)."""
    return policy.get_distribution(obs, action_masks=masks).distribution.logits


def masked_kl(logp: torch.Tensor, logq: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """KL(p || q) per state over the legal actions (``masks`` True), from log-probabilities
    that already carry the masks: sum_a p(a) (log p(a) - log q(a))."""
    terms = logp.exp() * (logp - logq)
    return torch.where(masks, terms, torch.zeros_like(terms)).sum(-1)


class _AnchorOptimizer:
    """The policy's optimizer with ``zero_grad`` followed by the anchor's backward pass (see
    the module docstring); every other attribute is the wrapped optimizer's."""

    def __init__(self, optimizer: torch.optim.Optimizer, add_anchor) -> None:
        self._optimizer = optimizer
        self._add_anchor = add_anchor

    def zero_grad(self, set_to_none: bool = True) -> None:
        self._optimizer.zero_grad(set_to_none=set_to_none)
        self._add_anchor()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._optimizer, name)


class FineTunePPO(MaskablePPO):
    """MaskablePPO with a value warm-up, a KL anchor to the starting policy and per-iteration
    diagnostics (see the module docstring). ``set_start_policy`` fixes pi_start (a frozen
    copy of the current policy); without it the anchor and the KL diagnostics are off."""

    def __init__(self, *args: Any, value_warmup_steps: int = 0, kl_anchor: float = 0.0,
                 value_warmup_learning_rate: float | None = None, **kwargs: Any) -> None:
        self.value_warmup_steps = int(value_warmup_steps)
        self.kl_anchor = float(kl_anchor)
        self.value_warmup_learning_rate = (None if value_warmup_learning_rate is None
                                           else float(value_warmup_learning_rate))
        if self.value_warmup_steps < 0:
            raise ValueError(f"ppo.value_warmup_steps must be >= 0, got {value_warmup_steps}")
        if not self.kl_anchor >= 0:
            raise ValueError(f"ppo.kl_anchor must be >= 0, got {kl_anchor}")
        self.start_policy = None
        self.diagnostics: list[dict] = []
        self._anchor_batch: tuple | None = None
        self._anchor_kls: list[float] = []
        super().__init__(*args, **kwargs)

    def _excluded_save_params(self) -> list[str]:
        # The saved model is a plain MaskablePPO file (PPOAgent and MaskablePPO.load read it).
        return super()._excluded_save_params() + [
            "value_warmup_steps", "kl_anchor", "value_warmup_learning_rate", "start_policy",
            "diagnostics", "_anchor_batch", "_anchor_kls"]

    def set_start_policy(self, state_dict: dict | None = None) -> None:
        """pi_start: a frozen copy of the policy as it is now, or with ``state_dict``'s
        weights (a resumed run's)."""
        with torch.random.fork_rng(devices=[]):  # building a copy draws initial weights:
            start = snapshot_policy(self.policy)  # keep the run's random stream untouched
        if state_dict is not None:
            start.load_state_dict(state_dict)
        self.start_policy = start

    def in_warmup(self) -> bool:
        """Whether the iteration about to train is a value warm-up one."""
        return 0 < self.num_timesteps <= self.value_warmup_steps

    def train(self) -> None:
        warm = self.in_warmup()
        anchor = self.kl_anchor > 0 and self.start_policy is not None and not warm
        self._anchor_kls = []
        with contextlib.ExitStack() as stack:
            if warm:
                stack.enter_context(frozen(policy_parameters(self.policy)))
                if self.value_warmup_learning_rate is not None:
                    stack.enter_context(self._constant_learning_rate(
                        self.value_warmup_learning_rate))
            if anchor:
                stack.enter_context(self._anchored())
            super().train()
        self._record_diagnostics("warmup" if warm else "ppo")

    @contextlib.contextmanager
    def _constant_learning_rate(self, lr: float) -> Iterator[None]:
        schedule = self.lr_schedule
        self.lr_schedule = lambda _progress: lr
        try:
            yield
        finally:
            self.lr_schedule = schedule

    @contextlib.contextmanager
    def _anchored(self) -> Iterator[None]:
        policy = self.policy
        evaluate = policy.evaluate_actions
        optimizer = policy.optimizer

        def noting(obs, actions, action_masks=None):
            self._anchor_batch = (obs, action_masks)
            return evaluate(obs, actions, action_masks=action_masks)

        policy.evaluate_actions = noting
        policy.optimizer = _AnchorOptimizer(optimizer, self._add_anchor_gradient)
        try:
            yield
        finally:
            policy.optimizer = optimizer
            del policy.evaluate_actions  # back to the class's method
            self._anchor_batch = None

    def anchor_loss(self, obs, masks) -> torch.Tensor:
        """beta * mean KL(pi_start || pi) over the states ``obs`` (with grad w.r.t. pi)."""
        masks = torch.as_tensor(masks).bool()
        with torch.no_grad():
            logp = log_probs(self.start_policy, obs, masks)
        kl = masked_kl(logp, log_probs(self.policy, obs, masks), masks).mean()
        self._anchor_kls.append(float(kl.detach()))
        return self.kl_anchor * kl

    def _add_anchor_gradient(self) -> None:
        if self._anchor_batch is None:
            return
        obs, masks = self._anchor_batch
        self._anchor_batch = None
        self.anchor_loss(obs, masks).backward()

    # -- diagnostics --------------------------------------------------------------------------

    def _buffer_arrays(self) -> tuple[Any, np.ndarray]:
        """The rollout's observations and action masks, one row per state."""
        buf = self.rollout_buffer

        def flat(a: np.ndarray) -> np.ndarray:
            return a if buf.generator_ready else a.reshape(-1, *a.shape[2:])

        obs = ({k: flat(v) for k, v in buf.observations.items()}
               if isinstance(buf.observations, dict) else flat(buf.observations))
        return obs, flat(buf.action_masks).astype(bool)

    def start_divergence(self, chunk: int = 1024) -> tuple[float, float]:
        """(mean KL(pi_start || pi), share of states with a choice whose argmax differs) over
        the rollout buffer's states; NaNs without a start policy."""
        if self.start_policy is None:
            return math.nan, math.nan
        obs, masks = self._buffer_arrays()
        n = len(masks)
        kl_sum = changed = choices = 0.0
        with torch.no_grad():
            for i in range(0, n, chunk):
                if isinstance(obs, dict):
                    o = {k: torch.as_tensor(v[i:i + chunk]) for k, v in obs.items()}
                else:
                    o = torch.as_tensor(obs[i:i + chunk])
                m = torch.as_tensor(masks[i:i + chunk])
                logp = log_probs(self.start_policy, o, m)
                logq = log_probs(self.policy, o, m)
                kl_sum += float(masked_kl(logp, logq, m).sum())
                choice = m.sum(-1) > 1
                changed += float(((logp.argmax(-1) != logq.argmax(-1)) & choice).sum())
                choices += float(choice.sum())
        return kl_sum / max(n, 1), changed / max(choices, 1.0)

    def _record_diagnostics(self, phase: str) -> None:
        logged = self.logger.name_to_value
        buf = self.rollout_buffer
        adv = np.asarray(buf.advantages, np.float64)
        kl_start, changed = self.start_divergence()
        eps = [e["r"] for e in self.ep_info_buffer] if self.ep_info_buffer else []
        row = {"iteration": len(self.diagnostics) + 1, "timesteps": int(self.num_timesteps),
               "phase": phase,
               "learning_rate": float(logged.get("train/learning_rate", math.nan)),
               "explained_variance": float(logged.get("train/explained_variance", math.nan)),
               "kl_to_start": kl_start, "argmax_changed": changed,
               "approx_kl": float(logged.get("train/approx_kl", math.nan)),
               "entropy": -float(logged.get("train/entropy_loss", math.nan)),
               "clip_fraction": float(logged.get("train/clip_fraction", math.nan)),
               "policy_loss": float(logged.get("train/policy_gradient_loss", math.nan)),
               "value_loss": float(logged.get("train/value_loss", math.nan)),
               "anchor_kl": (float(np.mean(self._anchor_kls)) if self._anchor_kls
                             else math.nan),
               "mean_abs_advantage": float(np.abs(adv).mean()),
               "advantage_std": float(adv.std()),
               "mean_return": float(np.mean(buf.returns)),
               "mean_value": float(np.mean(buf.values)),
               "ep_rew_mean": float(np.mean(eps)) if eps else math.nan}
        self.diagnostics.append(row)
        for key in ("kl_to_start", "argmax_changed", "mean_abs_advantage", "anchor_kl"):
            if not math.isnan(row[key]):
                self.logger.record(f"finetune/{key}", row[key])


def plot_diagnostics(rows: list[dict], path: Path) -> None:
    """Six panels over environment steps: explained variance, KL to the start policy (and the
    anchor's minibatch KL), argmax changed, entropy, clip fraction and approx KL, mean
    |advantage|; the value warm-up iterations shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("explained_variance", "explained variance (critic, rollout)"),
              ("kl_to_start", "KL(start || policy) on the rollout"),
              ("argmax_changed", "share of choices whose argmax moved"),
              ("entropy", "entropy"), ("clip_fraction", "clip fraction"),
              ("mean_abs_advantage", "mean |advantage|")]
    fig, axes = plt.subplots(2, 3, figsize=(13, 6.5))
    x = [r["timesteps"] for r in rows]
    warm = [r["timesteps"] for r in rows if r.get("phase") == "warmup"]
    for ax, (key, label) in zip(axes.flat, panels):
        ax.plot(x, [r[key] for r in rows], "-", lw=1)
        if key == "kl_to_start" and any(not math.isnan(r.get("anchor_kl", math.nan))
                                        for r in rows):
            ax.plot(x, [r["anchor_kl"] for r in rows], "-", lw=1, alpha=0.7,
                    label="anchor (minibatches)")
            ax.legend(fontsize=8)
        if warm:
            ax.axvspan(0, max(warm), color="grey", alpha=0.15, lw=0)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("environment steps" + (" (grey: value warm-up)" if warm else ""),
                      fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


__all__ = ["DIAG_FIELDS", "FineTunePPO", "frozen", "log_probs", "masked_kl",
           "plot_diagnostics", "policy_parameters", "value_parameter_names"]
