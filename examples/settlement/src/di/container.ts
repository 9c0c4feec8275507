type Factory = () => unknown;

const registry = new Map<string, Factory>();

/** Class decorator: registers the class under a token; the container constructs it on demand. */
export function Injectable(token: string) {
  return (target: new () => unknown) => {
    registry.set(token, () => new target());
  };
}

export function resolve<T>(token: string): T {
  const factory = registry.get(token);
  if (!factory) throw new Error(`nothing registered for ${token}`);
  return factory() as T;
}
