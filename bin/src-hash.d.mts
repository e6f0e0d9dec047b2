export declare function srcHash(root: string): string
export declare function stampPath(root: string): string
export declare function compiledIsCurrent(root: string, hash?: string): boolean
export declare function bundleDir(root: string): string
export declare function bundleInputs(root: string, packages: string[]): { made: string; packages: Record<string, string | null> }
export declare function bundleIsCurrent(root: string, hash?: string): boolean
export declare function entryFor(root: string, rel: string, hash?: string): Promise<string>
export declare function commandEntry(root: string, command: string): Promise<string>
