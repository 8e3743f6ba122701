"""Text cleaning shared by the vocabulary, the training data and the translator.

Both languages go through the same function, so that "¿Dónde está?" in the data and
"¿dónde   está ?" typed at the prompt become the same tokens:

    "¿Dónde está el baño?"  ->  "¿ dónde está el baño ?"
    "I don't know, Tom!"    ->  "i dont know , tom !"

A cleaned sentence is a string of words separated by single spaces; splitting it on
whitespace gives the tokens the vocabulary counts (a word-level tokenizer).
"""

import re
import unicodedata

# Punctuation that carries meaning in a translation (a question, an exclamation, a pause)
# and therefore becomes a token of its own.
PUNCTUATION = "¿?¡!,"
# Letters a cleaned sentence may contain besides a-z and 0-9 (Spanish accents).
ACCENTED = "áéíóúüñ"


def clean_text(text):
    """Normalise one sentence into space-separated word tokens.

    In order: Unicode NFC normalisation (so "e" + combining acute accent becomes the
    single letter "é"); lower-casing; one space on each side of every ``¿ ? ¡ ! ,``;
    deleting every other character that is not a-z, 0-9, one of ``á é í ó ú ü ñ`` or
    whitespace ("don't" -> "dont", "e-mail" -> "email", "Hola." -> "hola");
    collapsing runs of whitespace to one space; stripping both ends.

    Args:
        text: any string.

    Returns:
        The cleaned string ("" if nothing is left).

    Example::

        >>> clean_text("¿Dónde está el baño?")
        '¿ dónde está el baño ?'
    """
    # Pista: (~4 líneas) unicodedata.normalize("NFC", ...) y .lower(); re.sub para
    # separar los signos de PUNCTUATION y para borrar lo que no se permite (\s es espacio
    # en blanco); " ".join(texto.split()) colapsa y recorta los espacios. A diferencia del
    # cuaderno de clase 000, que cambia cada carácter eliminado por un espacio ("I'm sad" ->
    # "i m sad"), aquí se borra ("im sad"): una palabra no se parte en trozos sueltos (m, t, s).
    # Hint: (~4 lines) unicodedata.normalize("NFC", ...) and .lower(); re.sub to space
    # out the PUNCTUATION marks and to delete what is not allowed (\s is whitespace);
    # " ".join(text.split()) collapses and strips the spaces. Unlike lecture notebook 000,
    # which turns each removed character into a space ("I'm sad" -> "i m sad"), delete it
    # ("im sad"): a word is not split into stray pieces (m, t, s).
    ### BEGIN SOLUTION
    text = unicodedata.normalize("NFC", text).lower()
    text = re.sub(f"([{PUNCTUATION}])", r" \1 ", text)
    text = re.sub(f"[^a-z0-9{ACCENTED}{PUNCTUATION}\\s]", "", text)
    return " ".join(text.split())
    ### END SOLUTION
