export declare function srcHash(root: string): string
export declare function stampPath(root: string): string
export declare function compiledIsCurrent(root: string): boolean
