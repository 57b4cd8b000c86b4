// R16 in the browser: what a buyer keeps of a row, for the purchase preview.
//
// The same resolution as the core's catsack.game.resolve_dogs (tests/test_browser_learn.py
// compares the two on random rows): one dog chases one cat, two or more dogs cancel.

const DOGS = new Set(["LD", "SD"]);
// R16: the cat each lone dog chases, in order of preference; rabbits are never chased.
const LARGE_DOG_PREY = ["+15", "+11", "+8", "+5", "+3", "-5", "-8"];
const SMALL_DOG_PREY = ["-8", "-5", "+3", "+5", "+8", "+11", "+15"];

/**
 * Resolve the dogs of a bought row (tokens in row order).
 * Returns {chased, kept}: `chased` lists the dogs (row order) then the cat chased, if any;
 * `kept` the cards the buyer takes, in row order — as resolve_dogs returns them.
 */
export function resolveDogs(row) {
  const dogs = row.filter((c) => DOGS.has(c));
  const kept = row.filter((c) => !DOGS.has(c));
  if (dogs.length !== 1) return { chased: dogs, kept };
  const dog = dogs[0];
  for (const prey of dog === "LD" ? LARGE_DOG_PREY : SMALL_DOG_PREY) {
    const i = kept.indexOf(prey);
    if (i >= 0) {
      kept.splice(i, 1);
      return { chased: [dog, prey], kept };
    }
  }
  return { chased: [dog], kept };
}

/**
 * What buying the row now would bring, from its face-up cards only (R23: nothing hidden is
 * guessed). `exact` is true once no card is face down (always so under R15's last choice).
 */
export function purchasePreview(view) {
  const up = view.row.filter((rc) => rc.face_up).map((rc) => rc.card);
  const hidden = view.row.length - up.length;
  const { chased, kept } = resolveDogs(up);
  const dogs = up.filter((c) => DOGS.has(c));
  return { exact: hidden === 0, hidden, dogs, chased, kept };
}
