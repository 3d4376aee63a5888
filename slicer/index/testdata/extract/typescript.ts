export interface Options {
  budget: number;
}

export type Mode = "fast" | "slow";

enum Color {
  Red,
  Green,
}

export class Runner implements Options {
  budget = 10;

  run(mode: Mode): void {
    console.log(mode);
  }
}

export function start(opts: Options): Runner {
  return new Runner();
}

const stop = async (r: Runner): Promise<void> => {};

namespace Util {
  export function noop() {}
}
