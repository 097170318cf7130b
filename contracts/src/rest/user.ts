/** Users a job names: assigned users (AssignedUser*) and the editor (Editor). */
import { type Static, Type } from "@sinclair/typebox";
import { opt } from "./common.ts";

export const AssignedUserForCreationByName = Type.Object(
  { username: Type.String({ description: "username of the user should be assigned" }) },
  { title: "AssignedUserForCreationByName", description: "Create a assigned user by giving a valid name" },
);
export const AssignedUserForCreationById = Type.Object(
  { userId: Type.String({ description: "userId of the user should be assigned" }) },
  { title: "AssignedUserForCreationById", description: "Create a assigned user by giving a valid id" },
);
export const AssignedUserForCreation = Type.Union([
  AssignedUserForCreationByName,
  AssignedUserForCreationById,
]);
export type AssignedUserForCreation = Static<typeof AssignedUserForCreation>;

export const AssignedUser = Type.Object(
  {
    userId: Type.String({ description: "ID of the user who is assigned" }),
    username: Type.String({ description: "username of the user who is assigned" }),
  },
  { title: "AssignedUser" },
);

export const Editor = Type.Object(
  {
    userId: opt(Type.String({ description: "ID of the user who edits the pickjob" })),
    username: Type.String({ description: "username of the user who edits the pickjob" }),
  },
  { title: "Editor" },
);
