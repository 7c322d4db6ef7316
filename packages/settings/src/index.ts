export { parseSettings, SettingsError } from "./parse-settings.ts";
export { enumSetting, intSetting, listSetting, SERVICE_NAMES, Settings, type ServiceName } from "./settings.ts";
