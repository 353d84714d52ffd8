-- | Just enough JSON for the control plane: a command is one object whose
-- fields toll reads are strings and whole numbers (other values are parsed and
-- ignored); answers are written as objects of strings, numbers and lists.
module Json
  ( Value (..)
  , parseObject
  , str
  , int
  , J (..)
  , render
  ) where

import Data.Char (isDigit, isSpace, ord)
import Numeric (showHex)

data Value = VStr String | VInt Integer | VOther
  deriving (Eq, Show)

-- | The fields of one JSON object, or why the line is not one.
parseObject :: String -> Either String [(String, Value)]
parseObject s0 = case value (skip s0) of
  Right (Obj fields, rest) | all isSpace rest -> Right fields
  Right _ -> Left "not a JSON object"
  Left e -> Left e

data Parsed = Obj [(String, Value)] | Scalar Value

skip :: String -> String
skip = dropWhile isSpace

value :: String -> Either String (Parsed, String)
value ('{' : s) = members (skip s) []
value ('[' : s) = items (skip s)
value ('"' : s) = do
  (t, rest) <- string s ""
  return (Scalar (VStr t), rest)
value s@(c : _)
  | c == '-' || isDigit c =
      let (num, rest) = span (`elem` "+-0123456789.eE") s
       in case reads num of
            [(i, "")] -> Right (Scalar (VInt i), rest)
            _ | any isDigit num -> Right (Scalar VOther, rest)
            _ -> Left ("bad number " ++ num)
value s = case [rest | w <- ["true", "false", "null"], Just rest <- [strip w s]] of
  (rest : _) -> Right (Scalar VOther, rest)
  [] -> Left "unexpected text"
  where
    strip w t = if take (length w) t == w then Just (drop (length w) t) else Nothing

members :: String -> [(String, Value)] -> Either String (Parsed, String)
members ('}' : rest) acc = Right (Obj (reverse acc), rest)
members ('"' : s) acc = do
  (key, r1) <- string s ""
  r2 <- case skip r1 of
    ':' : r -> Right (skip r)
    _ -> Left "expected ':'"
  (v, r3) <- value r2
  let field = case v of
        Scalar x -> x
        Obj _ -> VOther
  case skip r3 of
    ',' : r -> members (skip r) ((key, field) : acc)
    '}' : r -> Right (Obj (reverse ((key, field) : acc)), r)
    _ -> Left "expected ',' or '}'"
members _ _ = Left "expected a field name"

items :: String -> Either String (Parsed, String)
items (']' : rest) = Right (Scalar VOther, rest)
items s = do
  (_, r1) <- value s
  case skip r1 of
    ',' : r -> items (skip r)
    ']' : r -> Right (Scalar VOther, r)
    _ -> Left "expected ',' or ']'"

string :: String -> String -> Either String (String, String)
string ('"' : rest) acc = Right (reverse acc, rest)
string ('\\' : c : rest) acc = case c of
  'n' -> string rest ('\n' : acc)
  't' -> string rest ('\t' : acc)
  'r' -> string rest ('\r' : acc)
  'b' -> string rest ('\b' : acc)
  'f' -> string rest ('\f' : acc)
  'u' | (h, r) <- splitAt 4 rest, [(v, "")] <- readsHex h -> string r (toEnum v : acc)
  _ -> string rest (c : acc)
  where
    readsHex h = if length h == 4 then [(read ("0x" ++ h), "")] else []
string (c : rest) acc = string rest (c : acc)
string [] _ = Left "unterminated string"

str :: String -> [(String, Value)] -> Maybe String
str k fields = case lookup k fields of
  Just (VStr s) -> Just s
  _ -> Nothing

int :: String -> [(String, Value)] -> Maybe Integer
int k fields = case lookup k fields of
  Just (VInt i) -> Just i
  _ -> Nothing

-- | An answer's values.
data J = JS String | JI Integer | JB Bool | JL [String]

render :: [(String, J)] -> String
render fields = "{" ++ commas [quote k ++ ":" ++ one v | (k, v) <- fields] ++ "}"
  where
    one (JS s) = quote s
    one (JI i) = show i
    one (JB b) = if b then "true" else "false"
    one (JL xs) = "[" ++ commas (map quote xs) ++ "]"
    commas = foldr1' (\a b -> a ++ "," ++ b)
    foldr1' _ [] = ""
    foldr1' f xs = foldr1 f xs

quote :: String -> String
quote s = "\"" ++ concatMap esc s ++ "\""
  where
    esc '"' = "\\\""
    esc '\\' = "\\\\"
    esc '\n' = "\\n"
    esc c
      | ord c < 0x20 = "\\u" ++ pad (showHex (ord c) "")
      | otherwise = [c]
    pad h = replicate (4 - length h) '0' ++ h
