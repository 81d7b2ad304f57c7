declare module 'asterisk-manager' {
  /** The parts of asterisk-manager 0.2.0 this package uses. Keys of replies and events arrive lower-cased. */
  export type AmiMessage = Record<string, string | string[] | Record<string, string>>
  interface Manager {
    connect(port: number, host: string, callback?: (err: Error | null) => void): void
    login(callback?: (err?: AmiMessage) => void): void
    action(
      action: Record<string, unknown>,
      callback?: (err: AmiMessage | undefined, res: AmiMessage) => void,
    ): string
    disconnect(callback?: () => void): void
    isConnected(): boolean
    on(event: string, listener: (...args: never[]) => void): void
    once(event: string, listener: (...args: never[]) => void): void
    removeAllListeners(event?: string): void
    options: { port: number; host: string; username: string; password: string; events: boolean }
  }
  const AsteriskManager: new (
    port?: number,
    host?: string,
    username?: string,
    password?: string,
    events?: boolean,
  ) => Manager
  export default AsteriskManager
}
