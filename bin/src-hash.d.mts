export declare function srcHash(root: string): string
export declare function stampPath(root: string): string
export declare function compiledIsCurrent(root: string): boolean
export declare function entryFor(root: string, rel: string): Promise<string>
