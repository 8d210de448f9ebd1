"""Behaviour cloning: warm-start a MaskablePPO policy from a scripted teacher before PPO.

PPO from scratch spends most of a one-hour budget learning what any scripted player knows
(capture what you can, do not leave points on the table). Cloning the heuristic first costs a
few minutes: ``collect`` plays hands in ``TrainEnv`` where the learning seat follows the teacher
(with a little random exploration, so that states off the teacher's path are seen too) and
records the observation, the legal moves and the teacher's choice; ``pretrain`` fits the policy
to those choices (cross-entropy over the masked logits) and the critic to the hands' scaled
results (mean squared error), with the same network PPO then fine-tunes.

Works for both action modes (compose: the teacher's next sub-action).
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from dataclasses import dataclass

import numpy as np
import torch
from gymnasium import spaces

from agents import make_agent


@dataclass
class Demos:
    """Teacher decisions. Enumerate mode keeps each decision's filled feature rows in one
    ragged array (``rows[start[i]:start[i] + n[i]]``); compose mode keeps masks instead."""

    obs: np.ndarray  # (N, D) float16
    action: np.ndarray  # (N,) int64
    ret: np.ndarray  # (N,) float32: the hand's scaled reward for the learner
    n: np.ndarray  # (N,) number of legal actions (enumerate: filled slots)
    start: np.ndarray | None = None  # (N,) offsets into rows
    rows: np.ndarray | None = None  # (sum n, F) float16 action features
    hints: np.ndarray | None = None  # (sum n, H) float32 move hints (when the env has them)
    mask: np.ndarray | None = None  # (N, A) bool (compose)
    # (sum n,) float32 teacher's score of each legal move (enumerate mode, a teacher that
    # keeps ``last_scores`` such as the search agent); -inf for a move it did not score.
    scores: np.ndarray | None = None
    # (N,) bool: the teacher's ``last_exact`` after each decision (a teacher that has it,
    # e.g. experiments.endgame_fit's: the label is exact play, not a search estimate)
    exact: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.action)


def _collect_worker(args: tuple) -> Demos:
    env_kwargs, teacher, n_decisions, explore, seed, progress, student_spec, beta = args
    from experiments.train_env import TrainEnv

    torch.set_num_threads(1)
    env = TrainEnv(**env_kwargs)
    # a teacher is an agent spec, or a picklable factory called with the seed
    agent = teacher(seed=seed) if callable(teacher) else make_agent(teacher, seed=seed)
    student = None
    if student_spec is not None:  # DAgger: the student plays, the teacher labels its states
        from agents.ppo import PPOAgent

        student = PPOAgent(*student_spec, seed=seed)
    rng = np.random.default_rng(seed)
    enumerate_mode = env.raw.action_mode == "enumerate"
    obs_l, act_l, ret_l, n_l, rows_l, mask_l, hint_l = [], [], [], [], [], [], []
    score_l: list[np.ndarray] = []
    exact_l: list[bool] = []
    scored = enumerate_mode and hasattr(agent, "last_scores")
    tagged = hasattr(agent, "last_exact")
    obs, _ = env.reset(seed=seed)
    episode: list[int] = []
    bar = None
    if progress:
        from tqdm.auto import tqdm

        label = teacher if isinstance(teacher, str) else getattr(
            getattr(teacher, "func", teacher), "__name__", "teacher")
        bar = tqdm(total=n_decisions, desc=f"demos ({label})", unit="dec", leave=False)
    while len(act_l) < n_decisions or episode:
        mask = env.action_masks()
        a = env.expert_action(agent)
        if a >= 0 and len(act_l) < n_decisions:
            o = obs["observation"] if isinstance(obs, dict) else obs
            obs_l.append(o.astype(np.float16))
            act_l.append(a)
            n_l.append(int(mask.sum()))
            if tagged:
                exact_l.append(bool(agent.last_exact))
            if enumerate_mode:
                # float16, not uint8: with two decks a card plane holds copies / 2
                rows_l.append(obs["action_features"][:int(mask.sum())].astype(np.float16))
                if "move_hints" in obs:
                    hint_l.append(obs["move_hints"][:int(mask.sum())].copy())
                if scored:
                    score_l.append(_slot_scores(env, agent.last_scores, int(mask.sum())))
            else:
                mask_l.append(mask.copy())
            episode.append(len(act_l) - 1)
            if bar is not None:
                bar.update(1)
        if student is not None and rng.random() >= beta:
            a = env.expert_action(student)
        if a < 0 or rng.random() < explore:
            a = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            # The reward arrives at the end of the hand: every decision of it gets the result.
            ret_l.extend([reward] * len(episode))
            episode = []
            obs, _ = env.reset()
    if bar is not None:
        bar.close()
    n = np.array(n_l, np.int64)
    demos = Demos(np.stack(obs_l), np.array(act_l, np.int64), np.array(ret_l, np.float32), n)
    if tagged:
        demos.exact = np.array(exact_l, bool)
    if enumerate_mode:
        demos.rows = np.concatenate(rows_l)
        demos.start = np.concatenate([[0], np.cumsum(n)[:-1]])
        if hint_l:
            demos.hints = np.concatenate(hint_l)
        if score_l:
            demos.scores = np.concatenate(score_l)
    else:
        demos.mask = np.stack(mask_l)
    return demos


def _slot_scores(env, last_scores, n: int) -> np.ndarray:
    """The teacher's scores laid out by action slot (enumerate mode): -inf where unscored."""
    out = np.full(n, -np.inf, np.float32)
    for move, score in last_scores:
        try:
            slot = int(env.raw.action_for(move))
        except ValueError:  # beyond the K slots
            continue
        if slot < n:
            out[slot] = score
    return out


def merge(parts: list[Demos]) -> Demos:
    """One set of demonstrations from several (in order)."""
    out = Demos(np.concatenate([p.obs for p in parts]),
                np.concatenate([p.action for p in parts]),
                np.concatenate([p.ret for p in parts]), np.concatenate([p.n for p in parts]))
    if parts[0].exact is not None:
        out.exact = np.concatenate([p.exact for p in parts])
    if parts[0].rows is not None:
        out.rows = np.concatenate([p.rows for p in parts])
        if parts[0].hints is not None:
            out.hints = np.concatenate([p.hints for p in parts])
        if parts[0].scores is not None:
            out.scores = np.concatenate([p.scores for p in parts])
        out.start = np.concatenate([[0], np.cumsum(out.n)[:-1]])
    else:
        out.mask = np.concatenate([p.mask for p in parts])
    return out


def collect(env_kwargs: dict, teacher: str, decisions: int, explore: float = 0.05,
            seed: int = 0, workers: int = 1, progress: bool = True,
            student: tuple | None = None, beta: float = 0.0) -> Demos:
    """``decisions`` teacher decisions from the learner's seat of ``TrainEnv(**env_kwargs)``
    (opponents as configured there), split over ``workers`` processes.

    ``student`` = (policy, env_config) of a PPOAgent (DAgger): the teacher still labels every
    decision, but the student's move is the one played (the teacher's with probability
    ``beta``), so that the states are those the student's own play reaches."""
    env_kwargs = dict(env_kwargs)
    if env_kwargs.get("action_mode") == "enumerate":
        env_kwargs["dict_obs"] = True
    if not 0.0 <= beta <= 1.0:
        raise ValueError(f"collect: beta must be in [0, 1], got {beta}")
    share = math.ceil(decisions / workers)
    jobs = [(env_kwargs, teacher, share, explore, seed * 1000 + w, progress and w == 0,
             student, beta) for w in range(workers)]
    if workers == 1:
        return _collect_worker(jobs[0])
    with mp.get_context("forkserver").Pool(workers) as pool:
        return merge(pool.map(_collect_worker, jobs))


def _slots(demos: Demos, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the decisions ``idx`` (enumerate mode): each legal move's batch row, its action
    slot, and its index into the ragged per-move arrays (rows, hints, scores)."""
    n = demos.n[idx]
    row_of = np.repeat(np.arange(len(idx)), n)
    slot = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    return row_of, slot, np.repeat(demos.start[idx], n) + slot


def _batch(demos: Demos, idx: np.ndarray, n_actions: int, dict_obs: bool):
    obs = torch.as_tensor(demos.obs[idx].astype(np.float32))
    if demos.rows is not None:
        k = int(demos.n[idx].max())
        row_of, slot, src = _slots(demos, idx)
        feats = np.zeros((len(idx), k, demos.rows.shape[1]), np.float32)
        feats[row_of, slot] = demos.rows[src]
        mask = np.zeros((len(idx), n_actions), bool)
        mask[row_of, slot] = True
        obs_in = {"observation": obs, "action_features": torch.as_tensor(feats),
                  "action_mask": torch.as_tensor(mask[:, :k].astype(np.float32))}
        if demos.hints is not None:
            hints = np.zeros((len(idx), k, demos.hints.shape[1]), np.float32)
            hints[row_of, slot] = demos.hints[src]
            obs_in["move_hints"] = torch.as_tensor(hints)
    else:
        mask = demos.mask[idx]
        obs_in = ({"observation": obs, "action_mask": torch.as_tensor(mask.astype(np.float32))}
                  if dict_obs else obs)
    return (obs_in, torch.as_tensor(demos.action[idx]), mask,
            torch.as_tensor(demos.ret[idx]))


def _softmax_targets(demos: Demos, idx: np.ndarray, k: int, values: np.ndarray,
                     temperature: float) -> torch.Tensor:
    """softmax(value / temperature) over each decision's moves (B x k); ``values`` holds one
    value per legal move (ragged, like ``rows``), -inf for a move that gets none of the mass."""
    row_of, slot, src = _slots(demos, idx)
    z = np.full((len(idx), k), -np.inf, np.float64)
    z[row_of, slot] = values[src] / temperature
    z -= z.max(1, keepdims=True)
    p = np.exp(z)
    return torch.as_tensor(p / p.sum(1, keepdims=True), dtype=torch.float32)


def _soft_targets(demos: Demos, idx: np.ndarray, k: int, temperature: float) -> torch.Tensor:
    """softmax(heuristic score / temperature): the hints' first column is the score in
    points x HINT_SCALE."""
    from agents.ppo import HINT_SCALE

    return _softmax_targets(demos, idx, k, demos.hints[:, 0] / HINT_SCALE, temperature)


def _score_targets(demos: Demos, idx: np.ndarray, k: int, temperature: float) -> torch.Tensor:
    """softmax(teacher score / temperature), moves the teacher did not score getting none of
    the mass."""
    return _softmax_targets(demos, idx, k, demos.scores, temperature)


def save_demos(demos: Demos, path: str) -> None:
    """Write the demonstrations to an ``.npz`` file (reused by ``load_demos``)."""
    np.savez_compressed(path, **{k: v for k, v in vars(demos).items() if v is not None})


def load_demos(path: str) -> Demos:
    """Demonstrations written by ``save_demos``."""
    with np.load(path) as f:
        return Demos(**{k: f[k] for k in f.files})


def pretrain(policy, demos: Demos, epochs: int = 3, batch_size: int = 512,
             learning_rate: float = 1e-3, value_coef: float = 0.5, holdout: float = 0.05,
             seed: int = 0, progress: bool = True, log=None, temperature: float = 0.0,
             score_temperature: float = 0.0, weights: np.ndarray | None = None) -> dict:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the demonstrations; returns the final
    training and held-out losses and the held-out accuracy (teacher's move is the argmax).

    ``temperature`` > 0 (points; needs heuristic hints in the demonstrations) fits the policy
    to softmax(heuristic score / temperature) instead of the teacher's single choice, so that
    PPO starts from a policy that still tries the moves the heuristic rates nearly as good
    (cloning the argmax gives a near-deterministic policy that PPO cannot move).

    ``score_temperature`` > 0 (points; needs teacher scores in the demonstrations, e.g. from
    the search agent) fits the policy to softmax(teacher score / temperature): the teacher's
    whole ranking of the moves it searched, not only its choice (distillation).

    ``weights`` (one per decision, mean about 1) scales each decision's policy loss, e.g. to
    stress the decisions where the teacher departs from the heuristic."""
    if temperature > 0 and score_temperature > 0:
        raise ValueError("pretrain: set temperature (heuristic targets) or score_temperature "
                         "(teacher scores), not both")
    if weights is not None and (len(weights) != len(demos) or np.any(np.asarray(weights) < 0)):
        raise ValueError(f"pretrain: weights must be {len(demos)} non-negative numbers, one "
                         "per decision")
    if score_temperature > 0 and demos.scores is None:
        raise ValueError("pretrain: score_temperature needs demonstrations with teacher "
                         "scores (collected in enumerate mode from a teacher with "
                         "last_scores, such as the search agent)")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(demos))
    n_hold = max(1, int(len(demos) * holdout))
    hold, train = order[:n_hold], order[n_hold:]
    n_actions = policy.action_space.n
    dict_obs = isinstance(policy.observation_space, spaces.Dict)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    steps_per_epoch = math.ceil(len(train) / batch_size)
    total = epochs * steps_per_epoch
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc="behaviour cloning", unit="batch", leave=False)
    step = 0
    stats: dict = {}
    t0 = time.perf_counter()
    for epoch in range(epochs):
        rng.shuffle(train)
        ce_sum = v_sum = 0.0
        for b in range(steps_per_epoch):
            idx = train[b * batch_size:(b + 1) * batch_size]
            obs, act, mask, ret = _batch(demos, idx, n_actions, dict_obs)
            for g in opt.param_groups:  # cosine decay
                g["lr"] = learning_rate * 0.5 * (1 + math.cos(math.pi * step / total))
            if (temperature > 0 and demos.hints is not None) or score_temperature > 0:
                values, _, _ = policy.evaluate_actions(obs, act, action_masks=mask)
                dist = policy.get_distribution(obs, action_masks=mask)
                logp = torch.log_softmax(dist.distribution.logits, -1)
                target = (_score_targets(demos, idx, logp.shape[1], score_temperature)
                          if score_temperature > 0 else
                          _soft_targets(demos, idx, logp.shape[1], temperature))
                ce_each = -(target * logp.clamp_min(-1e4)).sum(-1)
            else:
                values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=mask)
                ce_each = -log_prob
            ce = (ce_each.mean() if weights is None else
                  (ce_each * torch.as_tensor(weights[idx], dtype=torch.float32)).mean())
            v_loss = torch.nn.functional.mse_loss(values.flatten(), ret)
            loss = ce + value_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            ce_sum += ce.item()
            v_sum += v_loss.item()
            step += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix(ce=f"{ce.item():.3f}", v=f"{v_loss.item():.3f}")
        stats = {"epoch": epoch + 1, "train_ce": ce_sum / steps_per_epoch,
                 "train_value_mse": v_sum / steps_per_epoch}
        stats.update(evaluate(policy, demos, hold, batch_size, n_actions, dict_obs))
        stats["seconds"] = time.perf_counter() - t0
        if log is not None:
            log(stats)
    if bar is not None:
        bar.close()
    policy.set_training_mode(False)
    return stats


def evaluate(policy, demos: Demos, idx: np.ndarray, batch_size: int, n_actions: int,
             dict_obs: bool) -> dict:
    """Held-out cross-entropy, value error and accuracy (decisions with a choice only)."""
    policy.set_training_mode(False)
    ce = v = correct = choices = 0.0
    with torch.no_grad():
        for b in range(0, len(idx), batch_size):
            part = idx[b:b + batch_size]
            obs, act, mask, ret = _batch(demos, part, n_actions, dict_obs)
            dist = policy.get_distribution(obs, action_masks=mask)
            values = policy.predict_values(obs).flatten()
            ce += float(-dist.log_prob(act).sum())
            v += float(((values - ret) ** 2).sum())
            choice = torch.as_tensor(demos.n[part] > 1)
            pred = dist.distribution.logits.argmax(-1)
            correct += float(((pred == act) & choice).sum())
            choices += float(choice.sum())
    policy.set_training_mode(True)
    return {"holdout_ce": ce / len(idx), "holdout_value_mse": v / len(idx),
            "holdout_accuracy": correct / max(choices, 1.0)}


__all__ = ["Demos", "collect", "evaluate", "load_demos", "merge", "pretrain", "save_demos"]
