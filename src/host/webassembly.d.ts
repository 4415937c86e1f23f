// Minimal WebAssembly JS API types: tsconfig's lib is ES2022 without DOM, and @types/node 20 declares only
// an empty WebAssembly namespace. Only what the host uses, matching V8's runtime API.
export {};

declare global {
  namespace WebAssembly {
    type ImportValue = ((...args: never[]) => unknown) | Global | Memory | Table | number | bigint;
    type Imports = Record<string, Record<string, ImportValue>>;
    type ExportValue = ((...args: never[]) => unknown) | Global | Memory | Table;
    interface ModuleImportDescriptor {
      module: string;
      name: string;
      kind: 'function' | 'table' | 'memory' | 'global' | 'tag';
    }
    interface ModuleExportDescriptor {
      name: string;
      kind: 'function' | 'table' | 'memory' | 'global' | 'tag';
    }
    class Module {
      constructor(bytes: Uint8Array | ArrayBuffer);
      static imports(module: Module): ModuleImportDescriptor[];
      static exports(module: Module): ModuleExportDescriptor[];
    }
    class Instance {
      constructor(module: Module, imports?: Imports);
      readonly exports: Record<string, ExportValue | undefined>;
    }
    class Memory {
      constructor(descriptor: { initial: number; maximum?: number });
      readonly buffer: ArrayBuffer;
      grow(delta: number): number;
    }
    class Table {
      readonly length: number;
      get(index: number): unknown;
    }
    class Global {
      value: unknown;
    }
    class RuntimeError extends Error {}
    class CompileError extends Error {}
    class LinkError extends Error {}
  }
}
