"""Research adapters: PettingZoo, Gymnasium and OpenSpiel environments over the rules core.

Importing this package imports no optional library and registers nothing.
Each adapter lives in its own module and needs its extra:

- :mod:`catsack.envs.encoding` — integer actions and observation tensors built
  from a seat's view (numpy; extra ``catsack[rl]``).
- :mod:`catsack.envs.pettingzoo` — ``env(seats=4, reward="margin")``, an AEC
  environment (extra ``catsack[rl]``).
- :mod:`catsack.envs.gymnasium` — ``FelixEnv`` and ``register()`` for
  ``catsack/Felix-v0`` (extra ``catsack[rl]``).
- :mod:`catsack.envs.gymnasium_vector` — ``FelixVectorEnv``, the vector
  entry point of ``catsack/Felix-v0`` (extra ``catsack[rl]``).
- :mod:`catsack.envs.vector` — ``VectorGame``, many games stepped at once in
  numpy arrays (extra ``catsack[rl]``).
- :mod:`catsack.envs.openspiel` — ``register()`` for the OpenSpiel game
  ``python_catsack`` (extra ``catsack[openspiel]``).
- :mod:`catsack.envs.openspiel_bot` — ``OpenSpielISMCTSBot``, bot spec
  ``openspiel-ismcts`` (extra ``catsack[openspiel]``).

The layouts are documented in ``docs/envs.md``.
"""

from __future__ import annotations

__all__: list[str] = []
