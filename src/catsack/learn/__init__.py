"""Learned evaluation: features of information states, a numpy MLP, training by self-play, shipped weights.

Public API (stable; inference needs numpy only):

- :func:`load_value_model` -> :class:`ValueModel` with
  ``evaluate_views(views, head="win")`` (one value per view, for that view's
  seat) and the batched ``evaluate_features(x, seats)``;
- :func:`load_policy_model` -> :class:`PolicyModel` with ``choose(view)``,
  ``scores(view)`` (move text -> Q) and ``q_values(view)``;
- :func:`encode_features` / :func:`encode_views`: the feature vectors, from views only (R23).

Training: ``python -m catsack.learn.train --help`` (see ``docs/learning.md``).
"""

from __future__ import annotations

from catsack.learn.features import encode_features, encode_views, feature_size
from catsack.learn.model import (
    DEFAULT_WEIGHTS,
    PolicyModel,
    ValueModel,
    WeightsError,
    load_policy_model,
    load_value_model,
)

__all__ = [
    "DEFAULT_WEIGHTS",
    "PolicyModel",
    "ValueModel",
    "WeightsError",
    "encode_features",
    "encode_views",
    "feature_size",
    "load_policy_model",
    "load_value_model",
]
